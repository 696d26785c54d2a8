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
        // Round trips (they replay the whole history: every step of the first games only).
        if seed < ROUND_TRIP_GAMES || steps % 13 == 0 {
            let copy = game
                .deserialize_state(&state.serialize())
                .expect("deserialize");
            assert!(copy.eq_dyn(state.as_ref()), "serialize round trip");
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
        }
        let a = legal[rng.below(legal.len() as u64) as usize];
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
    for (total, r) in summed.iter().zip(&returns) {
        assert!(
            (total - r).abs() < 1e-9,
            "rewards add up to {summed:?}, returns {returns:?}"
        );
    }
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

fn conformance_of(name: &str) {
    for config in configs(name) {
        let game =
            load_game(name, config.clone()).unwrap_or_else(|e| panic!("{name} {config}: {e}"));
        for seed in 0..GAMES_PER_CONFIG {
            check_playout(game.as_ref(), seed);
        }
    }
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
