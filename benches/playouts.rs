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

criterion_group!(playout_benches, benches, bench_cicera_captures);
criterion_main!(playout_benches);
