//! Property tests over (config, seed, action stream) for every registered game: whatever the
//! input, nothing panics, an action is accepted exactly when it is legal, a refused action
//! changes nothing, and every state round-trips through serialization, also when the text is
//! mangled (it is then refused or gives a legal state).

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use tapete::{list_games, load_game, DynState};

/// Option values worth trying: every enum spelling of the four rules pages, and bad ones.
const WORDS: &[&str] = &[
    "random",
    "none",
    "every_deal",
    "reduced_after_spoil",
    "dealer_only_after_spoil",
    "enforced",
    "penalty",
    "optional",
    "disabled",
    "at_turn",
    "before_first_lead",
    "led_card",
    "highest_trump_so_far",
    "payer_stake",
    "jinker_stake",
    "to_pool",
    "play_on",
    "split_equally",
    "unresolved",
    "one_at_a_time",
    "packets",
    "any",
    "rank_match",
    "one_each",
    "nobody",
    "dealer_team",
    "match",
    "single_hand",
    "both",
    "up_only",
    "down_only",
    "table_priority",
    "stop",
    "all",
    "first_only",
    "walk",
    "played_on_top",
    "chain_members",
    "all_opponents",
    "unclaimed",
    "last_capturer",
    "void",
    "shared",
    "same",
    "next",
    "last_discard_then_wash",
    "immediate_wash",
    "forced",
    "lowest_type",
    "player_choice",
    "drawer_then_turn_order",
    "winner",
    "payer",
    "table",
    "additive",
    "team",
    "individual",
    "",
    "Random",
    "\u{1F0A1}",
];

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (0..12u64).prop_map(Value::from),
        2 => (-3..1200i64).prop_map(Value::from),
        1 => any::<i64>().prop_map(Value::from),
        2 => any::<bool>().prop_map(Value::from),
        3 => proptest::sample::select(WORDS).prop_map(Value::from),
        1 => proptest::collection::vec(proptest::collection::vec(0..11u64, 0..4), 0..4)
            .prop_map(|v| json!(v)),
        1 => (0..5u64, 0..5u64).prop_map(|(a, b)| json!([a, b])),
        1 => (-2.0..2.0f64).prop_map(Value::from),
    ]
}

/// A config: the defaults with a few keys given drawn values, sometimes a key no game has.
fn config_for(name: &str, values: &[(usize, Value)], extra: bool, explicit: bool) -> Value {
    let defaults = load_game(name, Value::Null).unwrap().config();
    let keys: Vec<&String> = defaults.as_object().unwrap().keys().collect();
    let mut out = Map::new();
    for (k, v) in values {
        out.insert(keys[k % keys.len()].clone(), v.clone());
    }
    if extra {
        out.insert("colour".into(), json!("red"));
    }
    if explicit {
        out.insert("explicit_chance".into(), json!(true));
    }
    Value::Object(out)
}

fn check_state(state: &dyn DynState, seat: usize) {
    let n = state.num_players();
    let _ = state.view(Some(seat % n)).unwrap();
    assert!(state.view(Some(n + seat)).is_err());
    let mut obs = vec![0.0; state.observation_len()];
    state.observe(seat % n, &mut obs).unwrap();
    let _ = state.information_state_string(seat % n).unwrap();
    let _ = state.observation_string(seat % n).unwrap();
    let _ = state.render();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn no_input_panics(
        game_index in 0..4usize,
        values in proptest::collection::vec((any::<usize>(), value()), 0..4),
        extra in proptest::bool::weighted(0.05),
        explicit in proptest::bool::weighted(0.3),
        seed in any::<u64>(),
        actions in proptest::collection::vec(any::<u16>(), 0..400),
        texts in proptest::collection::vec(".{0,12}", 4),
        cut in any::<u16>(),
    ) {
        let name = list_games()[game_index % list_games().len()];
        let Ok(game) = load_game(name, config_for(name, &values, extra, explicit)) else {
            return Ok(());
        };
        // Decisions and chance outcomes (explicit mode) share the ids.
        let count = game.num_distinct_actions().max(game.max_chance_outcomes());
        let mut state = game.new_state(seed, &[]).unwrap();
        let mut legal = Vec::new();
        for (step, &raw) in actions.iter().enumerate() {
            if state.is_terminal() {
                break;
            }
            legal.clear();
            state.legal_actions(&mut legal);
            // Mostly legal actions, so that games go deep; the rest anything in or out of range.
            let action = if raw % 4 != 0 {
                legal[raw as usize % legal.len()]
            } else {
                raw as usize % (count + 3)
            };
            let before = state.serialize();
            let accepted = state.apply(action).is_ok();
            prop_assert_eq!(accepted, legal.contains(&action), "{} {}", name, action);
            if !accepted {
                prop_assert_eq!(state.serialize(), before);
            }
            let _ = state.action_to_string(raw as usize);
            let _ = state.string_to_action(&texts[step % texts.len()]);
            if step % 37 == 0 {
                check_state(state.as_ref(), raw as usize);
                let seat = raw as usize % state.num_players();
                let other = state.resample(seat, seed ^ step as u64).unwrap();
                prop_assert_eq!(other.view(Some(seat)).unwrap(), state.view(Some(seat)).unwrap());
                let copy = game.deserialize_state(&other.serialize()).unwrap();
                prop_assert!(copy.eq_dyn(other.as_ref()), "a resampled world replays as itself");
            }
        }
        // Round trip, then a mangled copy: refused, or a state that is legal in itself.
        let text = state.serialize();
        let back = game.deserialize_state(&text).unwrap();
        prop_assert!(back.eq_dyn(state.as_ref()));
        let mut mangled = text.clone().into_bytes();
        if !mangled.is_empty() {
            let at = cut as usize % mangled.len();
            mangled[at] = b"0123456789,[]{}\"x-"[cut as usize % 18];
        }
        if let Ok(mangled) = String::from_utf8(mangled) {
            if let Ok(s) = game.deserialize_state(&mangled) {
                check_state(s.as_ref(), cut as usize);
            }
        }
        if let Some(head) = text.get(..cut as usize % (text.len() + 1)) {
            let _ = game.deserialize_state(head);
        }
    }
}
