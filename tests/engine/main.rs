//! The generic conformance suite, run for every registered game (OpenSpiel's random-simulation
//! test): random playouts checking, at every step, the invariants the trait promises.

mod hostile;

use tapete::{load_game, DynGame, Rng};

const GAMES_PER_CONFIG: u64 = 60;
/// Games per config in which every seventh state is resampled (determinisation is the slow part).
const RESAMPLED_GAMES: u64 = 16;
/// Games per config serialized and rebuilt at every step; the others every 13th step.
const ROUND_TRIP_GAMES: u64 = 10;

/// Configs to exercise per game: the defaults and a few option sets.
fn configs(name: &str) -> Vec<serde_json::Value> {
    use serde_json::json;
    match name {
        "spoil_five" => vec![
            json!({}),
            json!({"players": 2, "rob_policy": "penalty", "rob_timing": "before_first_lead"}),
            json!({"players": 10, "renege_reference": "highest_trump_so_far", "early_spoil_stop": true}),
            json!({"players": 6, "partnerships": [[0, 2, 4], [1, 3, 5]], "rob_policy": "optional", "deal_batches": [3, 2]}),
            json!({"players": 5, "ante_mode": "reduced_after_spoil", "leftover_pool": "split_equally", "jink_payment": "jinker_stake"}),
            json!({"players": 3, "ante_mode": "dealer_only_after_spoil", "jinking": false, "rob_policy": "disabled"}),
        ],
        "cicera" => vec![
            json!({"max_hands": 3}),
            json!({"game_mode": "single_hand", "packet_size": 6, "deal_style": "packets", "force_single_match": true}),
            json!({"game_mode": "single_hand", "packet_size": 4, "capture_compulsory": true, "left_bonus_mode": "rank_match"}),
            json!({"target_score": 11, "cards_tie": "one_each", "leftover_if_no_capture": "dealer_team", "all_spades_wins_match": true}),
            json!({"max_hands": 2, "auto_complete_unique": true, "force_single_match": true}),
        ],
        "cau_robat" => vec![
            json!({}),
            json!({"players": 3, "hands_to_win": 2, "stack_order": "played_on_top", "net_bonus": true}),
            json!({"players": 5, "chain_penalty_payers": "all_opponents", "direct_pile_match": true, "hand_tie": "shared"}),
            json!({"sequence_direction": "up_only", "rank_conflict": "stop", "own_pile_links": true, "multi_pile_same_rank": "first_only", "cau_enabled": false, "leftover_table_cards": "last_capturer"}),
        ],
        "cuajo" => vec![
            json!({}),
            json!({"hands_per_match": 3, "dealer_after_wash": "next", "returns": "individual", "max_turns": 60}),
            json!({"purro_call": "optional", "purro_marker": "player_choice", "secret_kind_public": true, "empty_stock": "immediate_wash", "may_rediscard_taken_card": false}),
            json!({"undeclared_quad_valid": false, "sowee_triple_undeclared_valid": true, "dead_waits_count": false, "penalty_draws_claimable": false, "purro_loss_penalty_turns": 3}),
            json!({"king_basis": "payer", "special_flat": false, "bonus_mode": "additive", "r2_needs_sowee_copy": false, "extra_draw": 0, "secret_on_winning_turn": false, "dealer_natural_win": false}),
        ],
        _ => vec![json!({})],
    }
}

fn check_playout(game: &dyn DynGame, seed: u64) {
    let mut state = game.new_state(seed, &[]).expect("new state");
    let mut rng = Rng::new(seed ^ 0xABCD);
    let n = game.num_players();
    let mut legal = Vec::new();
    let mut steps = 0;
    let mut summed = vec![0.0; n];
    assert!(
        state.rewards().iter().all(|&r| r == 0.0),
        "rewards before any action"
    );
    while let Some(p) = state.current_player() {
        assert!(p < n);
        legal.clear();
        state.legal_actions(&mut legal);
        assert!(!legal.is_empty(), "no legal action before the end");
        assert!(
            legal.windows(2).all(|w| w[0] < w[1]),
            "legal actions not ascending and unique"
        );
        for &a in &legal {
            assert_eq!(
                state
                    .string_to_action(&state.action_to_string(a).unwrap())
                    .unwrap(),
                a
            );
        }
        // An illegal action is refused and changes nothing.
        if let Some(bad) = (0..game.num_distinct_actions()).find(|a| !legal.contains(a)) {
            let before = state.clone_box();
            assert!(state.apply(bad).is_err());
            assert!(state.eq_dyn(before.as_ref()));
        }
        assert!(state.apply(game.num_distinct_actions()).is_err());
        // Information states are continued from a cache shared with clones: asked at every
        // step, and now and then after a clone took another action, they must stay what a
        // fresh replay of the history says.
        let mine = state.information_state_string(steps % n).unwrap();
        // Round trips (they replay the whole history: every step of the first games only).
        if seed < ROUND_TRIP_GAMES || steps % 13 == 0 {
            let copy = game
                .deserialize_state(&state.serialize())
                .expect("deserialize");
            assert!(copy.eq_dyn(state.as_ref()), "serialize round trip");
            assert_eq!(copy.information_state_string(steps % n).unwrap(), mine);
            if steps % 13 == 0 {
                for seat in 0..n {
                    assert_eq!(
                        copy.information_state_string(seat).unwrap(),
                        state.information_state_string(seat).unwrap(),
                        "information state after a round trip"
                    );
                }
            }
        }
        // What a seat sees is the same in a world re-dealt from its point of view.
        if seed < RESAMPLED_GAMES && steps % 7 == 0 {
            let seat = (seed as usize + steps) % n;
            let other = match state.try_resample(seat, seed + steps as u64).unwrap() {
                Some(other) => other,
                // A known defect (docs/engine.md): at rare late positions Cuajo's proposal
                // almost never fits and the hidden cards are kept; still indistinguishable.
                None if game.name() == "cuajo" => state.resample(seat, steps as u64).unwrap(),
                None => panic!(
                    "no resampled world for seat {seat}: {} {} seed {seed} step {steps}",
                    game.name(),
                    game.config()
                ),
            };
            // Whose turn it is and what that seat may do, when it is the seat's own turn.
            assert_eq!(
                other.current_player() == Some(seat),
                p == seat,
                "resample turn"
            );
            if p == seat {
                let mut theirs = Vec::new();
                other.legal_actions(&mut theirs);
                assert_eq!(theirs, legal, "resample legal actions");
            }
            assert_eq!(
                other.view(Some(seat)).unwrap(),
                state.view(Some(seat)).unwrap(),
                "resample view"
            );
            assert_eq!(
                other.information_state_string(seat).unwrap(),
                state.information_state_string(seat).unwrap()
            );
            let (mut a, mut b) = (
                vec![0.0; state.observation_len()],
                vec![0.0; state.observation_len()],
            );
            state.observe(seat, &mut a).unwrap();
            other.observe(seat, &mut b).unwrap();
            assert_eq!(a, b, "resample observation");
            assert_replays_as_itself(game, other.as_ref());
        }
        let a = legal[rng.below(legal.len() as u64) as usize];
        if steps % 13 == 0 && legal.len() > 1 {
            let mut branch = state.clone_box();
            branch.apply(legal[legal.len() - 1]).unwrap();
            for seat in 0..n {
                branch.information_state_string(seat).unwrap();
            }
        }
        state.apply(a).unwrap();
        for (total, r) in summed.iter_mut().zip(state.rewards()) {
            *total += r;
        }
        steps += 1;
        assert!(
            steps <= game.max_game_length(),
            "longer than max_game_length"
        );
    }
    let returns = state.returns();
    assert_rewards_add_up(&summed, &returns);
    let unresolved =
        game.config().get("leftover_pool").and_then(|v| v.as_str()) == Some("unresolved");
    if !unresolved {
        assert!(
            returns.iter().sum::<f64>().abs() < 1e-9,
            "returns not zero-sum: {returns:?}"
        );
    }
    let mut legal = Vec::new();
    state.legal_actions(&mut legal);
    assert!(legal.is_empty());
    assert!(state.apply(0).is_err());
}

/// The rewards of a whole game, summed step by step, are its returns.
fn assert_rewards_add_up(summed: &[f64], returns: &[f64]) {
    for (total, r) in summed.iter().zip(returns) {
        assert!(
            (total - r).abs() < 1e-9,
            "rewards add up to {summed:?}, returns {returns:?}"
        );
    }
}

fn conformance_of(name: &str) {
    for config in configs(name) {
        let game =
            load_game(name, config.clone()).unwrap_or_else(|e| panic!("{name} {config}: {e}"));
        for seed in 0..GAMES_PER_CONFIG {
            check_playout(game.as_ref(), seed);
        }
        let mut explicit = config.clone();
        explicit["explicit_chance"] = true.into();
        let explicit = load_game(name, explicit).unwrap();
        for seed in 0..EXPLICIT_GAMES {
            check_explicit_playout(explicit.as_ref(), seed);
            check_seeded_outcomes_replay(game.as_ref(), explicit.as_ref(), seed);
        }
    }
}

/// Explicit-chance games per config: random playouts drawing the outcomes by their
/// probabilities, and seeded games replayed with their decks as the outcomes.
const EXPLICIT_GAMES: u64 = 6;

/// A random playout of the explicit mode, checking every chance node as OpenSpiel's
/// `CheckChanceOutcomes` does, and every decision as `check_playout` does (more sparsely).
fn check_explicit_playout(game: &dyn DynGame, seed: u64) {
    let mut state = game.new_state(seed, &[]).expect("new state");
    let mut rng = Rng::new(seed ^ 0x5EED);
    let n = game.num_players();
    let (mut steps, mut decisions) = (0usize, 0usize);
    let mut summed = vec![0.0; n];
    let mut legal = Vec::new();
    while !state.is_terminal() {
        legal.clear();
        state.legal_actions(&mut legal);
        assert!(!legal.is_empty(), "nothing to do before the end");
        assert!(legal.windows(2).all(|w| w[0] < w[1]), "not ascending");
        if steps % 7 == 0 || (seed == 0 && steps < 40) {
            let copy = game
                .deserialize_state(&state.serialize())
                .expect("deserialize");
            assert!(copy.eq_dyn(state.as_ref()), "serialize round trip");
        }
        let action = if state.is_chance_node() {
            assert_eq!(state.current_player(), None);
            let outcomes = state.chance_outcomes();
            let ids: Vec<usize> = outcomes.iter().map(|&(c, _)| c).collect();
            assert_eq!(
                ids, legal,
                "legal actions at a chance node are its outcomes"
            );
            assert!(outcomes
                .iter()
                .all(|&(c, p)| p > 0.0 && p <= 1.0 && c < game.max_chance_outcomes()));
            let total: f64 = outcomes.iter().map(|&(_, p)| p).sum();
            assert!(
                (total - 1.0).abs() < 1e-9,
                "probabilities add up to {total}"
            );
            for &c in &ids {
                let text = state.action_to_string(c).unwrap();
                assert_eq!(state.string_to_action(&text).unwrap(), c, "{text}");
            }
            // Nothing is seen while cards are dealt: an empty tensor, no card in any view.
            let seat = steps % n;
            let mut obs = vec![1.0; state.observation_len()];
            state.observe(seat, &mut obs).unwrap();
            assert!(obs.iter().all(|&x| x == 0.0));
            let view = state.view(Some(seat)).unwrap();
            assert_eq!(view["phase"], "chance");
            assert!(state
                .information_state_string(seat)
                .unwrap()
                .ends_with(state.observation_string(seat).unwrap().as_str()));
            if seed == 0 && steps % 17 == 0 {
                let other = state.resample(seat, seed + steps as u64).unwrap();
                assert!(other.is_chance_node(), "resample at a chance node");
                assert_eq!(other.view(Some(seat)).unwrap(), view);
                assert_eq!(
                    other.information_state_string(seat).unwrap(),
                    state.information_state_string(seat).unwrap()
                );
            }
            // Drawn by the probabilities.
            let mut u = rng.below(1 << 53) as f64 / (1u64 << 53) as f64;
            let mut pick = ids[ids.len() - 1];
            for &(c, p) in &outcomes {
                if u < p {
                    pick = c;
                    break;
                }
                u -= p;
            }
            pick
        } else {
            let p = state.current_player().unwrap();
            if seed == 0 && decisions % 19 == 0 {
                let seat = (seed as usize + steps) % n;
                let other = state.resample(seat, seed + steps as u64).unwrap();
                assert_replays_as_itself(game, other.as_ref());
                assert_eq!(other.current_player() == Some(seat), p == seat);
                assert_eq!(
                    other.view(Some(seat)).unwrap(),
                    state.view(Some(seat)).unwrap()
                );
                assert_eq!(
                    other.information_state_string(seat).unwrap(),
                    state.information_state_string(seat).unwrap()
                );
            }
            decisions += 1;
            legal[rng.below(legal.len() as u64) as usize]
        };
        // Anything else is refused and changes nothing.
        let count = game.num_distinct_actions().max(game.max_chance_outcomes());
        if let Some(bad) = (0..count).find(|a| !legal.contains(a)) {
            let before = state.clone_box();
            assert!(state.apply(bad).is_err());
            assert!(state.eq_dyn(before.as_ref()));
        }
        assert!(state.apply(count + 1).is_err());
        state.apply(action).unwrap();
        for (total, r) in summed.iter_mut().zip(state.rewards()) {
            *total += r;
        }
        steps += 1;
    }
    assert!(
        decisions <= game.max_game_length(),
        "longer than max_game_length"
    );
    assert_rewards_add_up(&summed, &state.returns());
    assert_eq!(state.chance_outcomes(), []);
}

/// A state's text rebuilds the same state (a resampled world's history must replay as it).
fn assert_replays_as_itself(game: &dyn DynGame, state: &dyn tapete::DynState) {
    let copy = game
        .deserialize_state(&state.serialize())
        .unwrap_or_else(|e| panic!("{} {}: {e}", game.name(), state.serialize()));
    assert!(copy.eq_dyn(state), "{}: {}", game.name(), state.serialize());
    // What the state says of its last action follows from its own history too.
    assert_eq!(copy.rewards(), state.rewards(), "{}", state.serialize());
}

/// Explicit-mode resamples at every decision, for every seat, where re-dealt worlds may hold
/// more or fewer hidden decisions than the true one (a private rob decline, Cuajo's hidden
/// passes): each world is seen the same by the seat and its history replays as itself.
#[test]
fn explicit_resample_rebuilds_the_deals_history() {
    use serde_json::json;
    let configs = [
        ("spoil_five", json!({"players": 3, "rob_policy": "penalty"})),
        (
            "spoil_five",
            json!({"players": 4, "rob_policy": "optional", "rob_timing": "before_first_lead"}),
        ),
        (
            "spoil_five",
            json!({"players": 2, "rob_policy": "penalty", "rob_timing": "before_first_lead"}),
        ),
        ("cuajo", json!({})),
    ];
    for (name, mut config) in configs {
        config["explicit_chance"] = true.into();
        let game = load_game(name, config).unwrap();
        let n = game.num_players();
        for seed in 0..8u64 {
            let mut state = game.new_state(seed, &[]).unwrap();
            let mut rng = Rng::new(seed);
            let mut legal = Vec::new();
            for step in 0..60u64 {
                if state.is_terminal() {
                    break;
                }
                if !state.is_chance_node() {
                    for seat in 0..n {
                        let other = state.resample(seat, seed * 1000 + step).unwrap();
                        assert_eq!(
                            other.view(Some(seat)).unwrap(),
                            state.view(Some(seat)).unwrap()
                        );
                        let to_act = state.current_player() == Some(seat);
                        assert_eq!(other.current_player() == Some(seat), to_act);
                        assert_replays_as_itself(game.as_ref(), other.as_ref());
                    }
                }
                legal.clear();
                state.legal_actions(&mut legal);
                state
                    .apply(legal[rng.below(legal.len() as u64) as usize])
                    .unwrap();
            }
        }
    }
}

/// A seeded game, replayed in the explicit mode with its own decks (and first dealer) as the
/// chance outcomes: the same game, seen the same way by every seat at every decision.
fn check_seeded_outcomes_replay(seeded: &dyn DynGame, explicit: &dyn DynGame, seed: u64) {
    let n = seeded.num_players();
    let mut state = seeded.new_state(seed, &[]).unwrap();
    let mut rng = Rng::new(!seed);
    let mut actions = Vec::new();
    let mut legal = Vec::new();
    while !state.is_terminal() {
        legal.clear();
        state.legal_actions(&mut legal);
        let a = legal[rng.below(legal.len() as u64) as usize];
        actions.push(a);
        state.apply(a).unwrap();
    }
    let text: serde_json::Value = serde_json::from_str(&state.serialize()).unwrap();
    let decks: Vec<Vec<String>> = serde_json::from_value(text["decks"].clone()).unwrap();
    let mut seeded_state = seeded.new_state(seed, &[]).unwrap();
    let mut e = explicit.new_state(seed, &[]).unwrap();
    let mut seen_chance = 0;
    for (i, &a) in actions
        .iter()
        .chain(std::iter::once(&usize::MAX))
        .enumerate()
    {
        while e.is_chance_node() {
            let view = e.view(None).unwrap();
            let outcome = match view["deal"].as_u64() {
                None => Rng::new(seed).below(n as u64) as usize,
                Some(d) => {
                    let card = &decks[d as usize][view["cards_dealt"].as_u64().unwrap() as usize];
                    e.string_to_action(&format!("deal {card}")).unwrap()
                }
            };
            e.apply(outcome).unwrap();
            seen_chance += 1;
        }
        assert_eq!(e.is_terminal(), seeded_state.is_terminal(), "step {i}");
        assert_eq!(e.current_player(), seeded_state.current_player());
        assert_eq!(e.returns(), seeded_state.returns());
        assert_eq!(
            e.view(None).unwrap(),
            seeded_state.view(None).unwrap(),
            "step {i}"
        );
        // (Information states replay the game: checked now and then, and at the end.)
        for seat in (0..n).filter(|_| i % 13 == 0 || a == usize::MAX) {
            assert_eq!(
                e.information_state_string(seat).unwrap(),
                seeded_state.information_state_string(seat).unwrap()
            );
            let (mut x, mut y) = (
                vec![0.0; e.observation_len()],
                vec![0.0; e.observation_len()],
            );
            e.observe(seat, &mut x).unwrap();
            seeded_state.observe(seat, &mut y).unwrap();
            assert_eq!(x, y);
        }
        if a == usize::MAX {
            break;
        }
        let (mut l1, mut l2) = (Vec::new(), Vec::new());
        e.legal_actions(&mut l1);
        seeded_state.legal_actions(&mut l2);
        assert_eq!(l1, l2);
        e.apply(a).unwrap();
        seeded_state.apply(a).unwrap();
    }
    assert!(seen_chance > 0);
    assert!(e.is_terminal());
}

// One test per game, so that the harness runs them on every core.
#[test]
fn conformance_spoil_five() {
    conformance_of("spoil_five");
}
#[test]
fn conformance_cicera() {
    conformance_of("cicera");
}
#[test]
fn conformance_cau_robat() {
    conformance_of("cau_robat");
}
#[test]
fn conformance_cuajo() {
    conformance_of("cuajo");
}
#[test]
fn conformance_covers_every_registered_game() {
    assert_eq!(
        tapete::list_games(),
        ["spoil_five", "cicera", "cau_robat", "cuajo"]
    );
}

#[test]
fn same_seed_same_game() {
    for name in tapete::list_games() {
        let game = load_game(name, serde_json::Value::Null).unwrap();
        let a = game.new_state(42, &[]).unwrap();
        let b = game.new_state(42, &[]).unwrap();
        assert!(a.eq_dyn(b.as_ref()));
        assert_eq!(a.serialize(), b.serialize());
    }
}

#[test]
fn bad_configs_and_corrupt_states_are_errors() {
    use serde_json::json;
    assert!(load_game("no_such_game", json!({})).is_err());
    assert!(load_game("spoil_five", json!({"colour": "red"})).is_err());
    for players in [0, 1, 11] {
        assert!(load_game("spoil_five", json!({ "players": players })).is_err());
    }
    let game = load_game("spoil_five", json!({})).unwrap();
    let text = game.new_state(1, &[]).unwrap().serialize();
    for bad in [
        "",
        "{}",
        "null",
        &text[..text.len() / 2],
        &text.replace("\"history\":[]", "\"history\":[999]"),
    ] {
        assert!(game.deserialize_state(bad).is_err(), "{bad}");
    }
}
