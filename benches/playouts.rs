//! Native random playouts of every registered game, typed (no erased layer, no allocation in
//! the loop): actions per second is the figure the README reports.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use tapete::bots::random_playout;
use tapete::{Game, GameOf};

/// Plays `games` random games from consecutive seeds; returns the number of actions.
fn playouts<G: Game>(config: &G::Config, games: u64) -> u64 {
    let mut legal = Vec::with_capacity(64);
    let mut returns = vec![0.0; G::num_players(config)];
    (0..games)
        .map(|seed| random_playout::<G>(config, seed, &mut legal, &mut returns))
        .sum::<u64>()
        + black_box(0)
}

fn bench_game<G: Game>(c: &mut Criterion, config: serde_json::Value, label: &str) {
    let game = GameOf::<G>::from_json(config).expect("config");
    let config = game.config_ref().as_ref().clone();
    const GAMES: u64 = 200;
    let actions = playouts::<G>(&config, GAMES);
    let mut group = c.benchmark_group(format!("{}/{label}", G::NAME));
    group.throughput(Throughput::Elements(actions));
    group.bench_function("random_playouts", |b| {
        b.iter(|| playouts::<G>(&config, GAMES))
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    macro_rules! bench {
        ($g:ty) => {
            bench_game::<$g>(c, serde_json::json!({}), "default");
        };
    }
    tapete::for_each_game!(bench);
    bench_game::<tapete::SpoilFive>(
        c,
        serde_json::json!({"players": 4, "num_deals": 1, "leftover_pool": "unresolved"}),
        "4p_one_deal",
    );
}

/// `cicera::captures` of a random card on random 10-card tables (the target: < 1 µs).
fn bench_cicera_captures(c: &mut Criterion) {
    let mut rng = tapete::Rng::new(1);
    let cases: Vec<(u64, u8)> = (0..1024)
        .map(|_| {
            let mut deck: Vec<u8> = (0..52).collect();
            rng.shuffle(&mut deck);
            let table = deck[..10].iter().fold(0u64, |m, &x| m | 1 << x);
            (table, deck[10])
        })
        .collect();
    let mut group = c.benchmark_group("cicera/captures");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("10_card_tables", |b| {
        b.iter(|| {
            cases
                .iter()
                .map(|&(table, card)| {
                    tapete::games::cicera::captures(black_box(table), card, false).len()
                })
                .sum::<usize>()
        })
    });
    group.finish();
}

/// Cuajo's evaluator on dealt hands (the first 16 or 15 cards of shuffled packs) and on complete
/// hands (the targets: 20 M completeness checks/s, 1 M hands/s for waits).
fn bench_cuajo_evaluator(c: &mut Criterion) {
    use tapete::games::cuajo::eval::{self, Counts, Melds};
    let mut rng = tapete::Rng::new(1);
    let dealt = |n: usize, rng: &mut tapete::Rng| -> Counts {
        let mut deck: Vec<u8> = (0..112).map(|i| (i / 4) as u8).collect();
        rng.shuffle(&mut deck);
        let mut counts = [0u8; eval::KINDS];
        deck[..n].iter().for_each(|&k| counts[k as usize] += 1);
        counts
    };
    let hands16: Vec<Counts> = (0..1024).map(|_| dealt(16, &mut rng)).collect();
    let hands15: Vec<Counts> = (0..1024).map(|_| dealt(15, &mut rng)).collect();
    // Complete hands: random combinations (sets, sequences, kings) until 16 cards.
    let mut complete: Vec<Counts> = Vec::new();
    while complete.len() < 1024 {
        let mut h = [0u8; eval::KINDS];
        let mut n = 0;
        while n < 16 {
            let (suit, rank) = (rng.below(4) as usize, rng.below(7) as usize);
            let group: Vec<usize> = match (rng.below(3), rank) {
                (0, _) | (_, eval::KING) => vec![eval::kind(suit, eval::KING)],
                (1, 1..=3) => (1..4).map(|r| eval::kind(suit, r)).collect(),
                (1, 4..=5) => (4..7).map(|r| eval::kind(suit, r)).collect(),
                _ => (0..4)
                    .filter(|&s| s != suit)
                    .map(|s| eval::kind(s, rank))
                    .collect(),
            };
            if n + group.len() <= 16 && group.iter().all(|&k| h[k] < 4) {
                group.iter().for_each(|&k| h[k] += 1);
                n += group.len();
            }
        }
        if eval::partitionable(&h, Melds::DEFAULT) {
            complete.push(h);
        }
    }
    let mut group = c.benchmark_group("cuajo/evaluator");
    for (label, hands) in [
        ("is_complete_dealt", &hands16),
        ("is_complete_complete", &complete),
    ] {
        group.throughput(Throughput::Elements(hands.len() as u64));
        group.bench_function(label, |b| {
            b.iter(|| {
                hands
                    .iter()
                    .filter(|h| eval::partitionable(black_box(h), Melds::DEFAULT))
                    .count()
            })
        });
    }
    group.throughput(Throughput::Elements(hands15.len() as u64));
    group.bench_function("waits_dealt", |b| {
        b.iter(|| {
            hands15
                .iter()
                .map(|h| eval::waits(black_box(h), h, |_| 4, Melds::DEFAULT).count_ones())
                .sum::<u32>()
        })
    });
    group.finish();
}

criterion_group!(
    playout_benches,
    benches,
    bench_cicera_captures,
    bench_cuajo_evaluator
);
criterion_main!(playout_benches);
