//! Single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012), written once for
//! every game: each iteration re-deals what the searching seat cannot see
//! ([`Tracked::resample`]), descends one tree of action sequences from the current decision by
//! UCB with availability counts (a child's exploration term counts the iterations in which its
//! action was legal, not its parent's visits), adds one node, and plays out to the end.

use super::spec::{Horizon, IsmctsParams, Rollout};
use crate::dynamic::Tracked;
use crate::game::{Action, Game};
use crate::rng::Rng;

struct Node<A> {
    /// The action that leads here and the seat that took it.
    action: A,
    player: usize,
    visits: u32,
    /// Iterations in which `action` was legal at the parent.
    available: u32,
    /// Sum of the final returns of `player` over the visits.
    total: f64,
    /// Sum of their squares.
    total_sq: f64,
    children: Vec<u32>,
}

/// What a tree learnt of one root action.
#[derive(Clone, Copy, Default)]
struct RootStats {
    visits: u64,
    total: f64,
    total_sq: f64,
}

impl RootStats {
    fn add(&mut self, other: &RootStats) {
        self.visits += other.visits;
        self.total += other.total;
        self.total_sq += other.total_sq;
    }

    fn mean(&self) -> f64 {
        self.total / self.visits as f64
    }

    /// The variance of the mean.
    fn mean_variance(&self) -> f64 {
        let n = self.visits as f64;
        (self.total_sq / n - self.mean().powi(2)).max(0.0) / n
    }
}

/// The action IS-MCTS chooses for the seat to act in `root` (not terminal), among its `legal`
/// actions.
pub fn choose<G: Game>(
    root: &Tracked<G>,
    legal: &[G::Action],
    params: &IsmctsParams,
    rng: &mut Rng,
) -> G::Action {
    if legal.len() == 1 {
        return legal[0];
    }
    let trees = params.threads.max(1) as usize;
    let seeds: Vec<u64> = (0..trees).map(|_| rng.next_u64()).collect();
    let per_tree = (params.iterations as usize).div_ceil(trees).max(1);
    let trees: Vec<Vec<(G::Action, RootStats)>> = if trees == 1 {
        vec![grow(root, params, per_tree, seeds[0])]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = seeds
                .iter()
                .map(|&seed| s.spawn(move || grow(root, params, per_tree, seed)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("an IS-MCTS tree panicked"))
                .collect()
        })
    };
    let mut stats = vec![RootStats::default(); G::Action::COUNT];
    for tree in &trees {
        for (a, t) in tree {
            stats[a.index()].add(t);
        }
    }
    match params.rollout {
        // The most visited action; ties to the lowest action.
        Rollout::Random => {
            let mut best = legal[0];
            for &a in legal {
                if stats[a.index()].visits > stats[best.index()].visits {
                    best = a;
                }
            }
            best
        }
        // The heuristic's own choice, unless the search found an action whose mean return
        // beats it by more than the noise allows (then the best such): a few hundred
        // iterations cannot tell apart actions a point apart in a game whose returns spread
        // over tens of points, and picking among them by visits plays worse than the heuristic.
        Rollout::Heuristic => {
            let anchor = root.state().heuristic_action(legal, rng);
            anchored(legal, &stats, anchor)
        }
    }
}

/// `anchor` (the heuristic's choice), or the best of the `legal` actions whose mean return in
/// `stats` (indexed by action) beats it by more than the noise allows.
fn anchored<A: Action>(legal: &[A], stats: &[RootStats], anchor: A) -> A {
    let h = stats[anchor.index()];
    // One return's variance, over every root return around their common mean (never less than
    // the within-action variance): an action's own few returns, alike by chance, would make a
    // gap of a point look certain.
    let mut all = RootStats::default();
    legal.iter().for_each(|a| all.add(&stats[a.index()]));
    if h.visits < 2 || all.visits < 2 {
        return anchor;
    }
    let variance = all.mean_variance() * all.visits as f64;
    // One-sided 2.5% for the best of the other actions (Bonferroni): with a dozen candidates
    // a two-standard-error gap turns up by chance in about one search of seven.
    let z = upper_normal_quantile(0.025 / (legal.len() - 1) as f64);
    let mut best = anchor;
    let mut best_mean = h.mean();
    for &a in legal {
        let s = stats[a.index()];
        if s.visits < 2 || s.mean() <= best_mean {
            continue;
        }
        let error = (variance * (1.0 / s.visits as f64 + 1.0 / h.visits as f64)).sqrt();
        if s.mean() - h.mean() > z * error {
            best = a;
            best_mean = s.mean();
        }
    }
    best
}

/// The `z` with `P(Z > z) = p` for a standard normal `Z` (0 < p ≤ 0.5; Abramowitz and Stegun
/// 26.2.23, within 4.5e-4).
fn upper_normal_quantile(p: f64) -> f64 {
    let t = (-2.0 * p.ln()).sqrt();
    t - (2.515517 + 0.802853 * t + 0.010328 * t * t)
        / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t)
}

/// Grows one tree for `iterations` and gives the root's children with what it learnt of them.
fn grow<G: Game>(
    root: &Tracked<G>,
    params: &IsmctsParams,
    iterations: usize,
    seed: u64,
) -> Vec<(G::Action, RootStats)> {
    let me = root
        .state()
        .current_player()
        .expect("IS-MCTS needs a decision");
    let n = G::num_players(root.config());
    let mut rng = Rng::new(seed);
    let mut nodes: Vec<Node<G::Action>> = Vec::with_capacity(iterations + 1);
    let mut legal = Vec::with_capacity(64);
    let mut untried = Vec::with_capacity(64);
    let mut options: Vec<u32> = Vec::with_capacity(64);
    let mut path: Vec<u32> = Vec::with_capacity(64);
    let mut returns = vec![0.0; n];
    // Returns are compared after dividing by the largest seen, so that `c` means the same in
    // every game whatever its stakes.
    let mut scale = f64::MIN_POSITIVE;
    let mut root_children: Vec<u32> = Vec::new();
    let seen = root.seen_by(me);
    for _ in 0..iterations {
        let mut state = root.resampled_state(&seen, rng.next_u64());
        path.clear();
        let mut at: Option<u32> = None; // None: the root
        while let Some(player) = state.current_player() {
            legal.clear();
            state.legal_actions(&mut legal);
            let children = match at {
                None => &root_children,
                Some(i) => &nodes[i as usize].children,
            };
            options.clear();
            untried.clear();
            for &a in &legal {
                match children.iter().find(|&&c| nodes[c as usize].action == a) {
                    Some(&c) => options.push(c),
                    None => untried.push(a),
                }
            }
            for &c in &options {
                nodes[c as usize].available += 1;
            }
            if !untried.is_empty() {
                // With heuristic rollouts the heuristic also picks among the untried actions:
                // a reply expanded at random would make the first plies below a node assume
                // opponents who play at random (Cicera: trailing a card would look safe).
                let pick = match params.rollout {
                    Rollout::Heuristic => Some(state.heuristic_action(&untried, &mut rng)),
                    Rollout::Random => None,
                };
                let action = match pick {
                    Some(a) if untried.contains(&a) => a,
                    _ => untried[rng.below(untried.len() as u64) as usize],
                };
                let id = nodes.len() as u32;
                nodes.push(Node {
                    action,
                    player,
                    visits: 0,
                    available: 1,
                    total: 0.0,
                    total_sq: 0.0,
                    children: Vec::new(),
                });
                match at {
                    None => root_children.push(id),
                    Some(i) => nodes[i as usize].children.push(id),
                }
                state.apply_unchecked(action);
                path.push(id);
                break;
            }
            let mut best = options[0];
            let mut best_score = f64::NEG_INFINITY;
            for &c in &options {
                let node = &nodes[c as usize];
                let visits = f64::from(node.visits.max(1));
                let score = node.total / visits / scale
                    + params.c * (f64::from(node.available).ln() / visits).sqrt();
                if score > best_score {
                    best_score = score;
                    best = c;
                }
            }
            state.apply_unchecked(nodes[best as usize].action);
            path.push(best);
            at = Some(best);
        }
        let deal = (params.horizon == Horizon::Deal).then(|| root.state().deal_index());
        playout(
            &mut state,
            params.rollout,
            deal,
            &mut rng,
            &mut legal,
            &mut returns,
        );
        scale = returns.iter().fold(scale, |m, r| m.max(r.abs()));
        for &id in &path {
            let node = &mut nodes[id as usize];
            node.visits += 1;
            node.total += returns[node.player];
            node.total_sq += returns[node.player].powi(2);
        }
    }
    root_children
        .iter()
        .map(|&c| {
            let node = &nodes[c as usize];
            let stats = RootStats {
                visits: u64::from(node.visits),
                total: node.total,
                total_sq: node.total_sq,
            };
            (node.action, stats)
        })
        .collect()
}

/// Plays `state` with uniformly random actions or the game's heuristic, to the end or (with
/// `deal`) until a later deal than `deal` has started and the game can value it, and writes
/// each seat's value of the end reached into `value`.
pub fn playout<G: Game>(
    state: &mut G,
    rollout: Rollout,
    deal: Option<usize>,
    rng: &mut Rng,
    legal: &mut Vec<G::Action>,
    value: &mut [f64],
) {
    loop {
        legal.clear();
        state.legal_actions(legal);
        if legal.is_empty() {
            state.returns(value);
            return;
        }
        if deal.is_some_and(|d| state.deal_index() != d) && state.deal_value(value) {
            return;
        }
        let action = match rollout {
            Rollout::Random => legal[rng.below(legal.len() as u64) as usize],
            Rollout::Heuristic => state.heuristic_action(legal, rng),
        };
        state.apply_unchecked(action);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{cau_robat, cicera, cuajo, spoil_five};
    use std::sync::Arc;

    /// A `horizon=deal` playout of a multi-deal game stops at the first decision of the next
    /// deal, where the game's estimate is finite and (these configs are zero-sum) sums to 0;
    /// a `horizon=game` playout reaches the end.
    fn check<G: Game>(mut config: G::Config) {
        G::check_config(&mut config).unwrap();
        let n = G::num_players(&config);
        let config = Arc::new(config);
        let mut value = vec![f64::NAN; n];
        let mut legal = Vec::new();
        let mut stopped = 0;
        for seed in 0..20 {
            let start = Tracked::<G>::new(config.clone(), seed, Vec::new()).into_state();
            let mut rng = Rng::new(seed);
            let mut state = start.clone();
            playout(
                &mut state,
                Rollout::Random,
                Some(0),
                &mut rng,
                &mut legal,
                &mut value,
            );
            if !state.is_terminal() {
                assert_eq!(state.deal_index(), 1, "{} seed {seed}", G::NAME);
                assert!(value.iter().all(|v| v.is_finite()));
                assert!(value.iter().sum::<f64>().abs() < 1e-9, "{value:?}");
                stopped += 1;
            }
            let mut state = start;
            playout(
                &mut state,
                Rollout::Heuristic,
                None,
                &mut rng,
                &mut legal,
                &mut value,
            );
            assert!(state.is_terminal());
            let mut returns = vec![0.0; n];
            state.returns(&mut returns);
            assert_eq!(value, returns);
        }
        assert!(
            stopped > 10,
            "{}: {stopped} playouts stopped at a deal",
            G::NAME
        );
    }

    /// The anchor is left only on evidence: not for an action tried twice with alike returns
    /// (the old rule's mistake), nor for the best of many near gaps; but for a clear gap.
    #[test]
    fn the_heuristic_anchor_is_left_only_on_evidence() {
        use spoil_five::Action as A;
        let legal: Vec<A> = (0..15).map(|i| A::from_index(i).unwrap()).collect();
        let stat = |returns: &[f64]| RootStats {
            visits: returns.len() as u64,
            total: returns.iter().sum(),
            total_sq: returns.iter().map(|r| r * r).sum(),
        };
        let mut stats = vec![RootStats::default(); A::COUNT];
        // The anchor (action 0) and 13 others: returns spread over +-10 around 0.
        let spread: Vec<f64> = (0..40)
            .map(|i| if i % 2 == 0 { 10.0 } else { -10.0 })
            .collect();
        for s in &mut stats[..14] {
            *s = stat(&spread);
        }
        // Tried twice, both +9: a large mean with no spread of its own.
        stats[14] = stat(&[9.0, 9.0]);
        assert_eq!(anchored(&legal, &stats, legal[0]), legal[0]);
        // A gap of 5 over 40 returns each (2.2 standard errors of the gap): not enough among
        // 15 actions (z = 2.9 after Bonferroni).
        stats[14] = stat(&spread.iter().map(|r| r + 5.0).collect::<Vec<_>>());
        assert_eq!(anchored(&legal, &stats, legal[0]), legal[0]);
        // Between two actions 1.96 is enough: the same gap is.
        assert_eq!(
            anchored(&[legal[0], legal[14]], &stats, legal[0]),
            legal[14]
        );
        // A clear gap among 15.
        stats[14] = stat(&spread.iter().map(|r| r + 9.0).collect::<Vec<_>>());
        assert_eq!(anchored(&legal, &stats, legal[0]), legal[14]);
    }

    #[test]
    fn normal_quantiles() {
        for (p, z) in [
            (0.5, 0.0),
            (0.025, 1.959964),
            (0.0025, 2.807034),
            (0.000_5, 3.290527),
        ] {
            assert!((upper_normal_quantile(p) - z).abs() < 5e-4, "{p}");
        }
    }

    #[test]
    fn deal_horizon_playouts_stop_at_the_next_deal_with_the_games_estimate() {
        check::<spoil_five::SpoilFive>(Default::default());
        check::<cicera::Cicera>(Default::default());
        check::<cau_robat::CauRobat>(cau_robat::Config {
            hands_to_win: 3,
            ..Default::default()
        });
        check::<cuajo::Cuajo>(cuajo::Config {
            hands_per_match: 3,
            ..Default::default()
        });
    }
}
