//! The only PyO3 code: the `tapete._core` module, its `Game` and `State` classes, the
//! evaluators, and the mapping of engine errors onto the classes of `tapete.errors`.

use crate::dynamic::{DynGame, DynState};
use crate::games::spoil_five::{self, RenegeReference};
use crate::games::{cau_robat, cicera, cuajo};
use crate::{cards, registry, Error};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::Value;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Mutex, MutexGuard, PoisonError};

mod bots;
mod vector;

/// Longest error message passed to Python; inputs are already cut where they are quoted, this
/// only guards against a message that lists too much.
const MAX_MESSAGE: usize = 2000;

/// Raises the `tapete.errors` class of an engine error (defined in Python, imported here), or
/// Python's own ValueError or MemoryError.
fn to_py(err: Error) -> PyErr {
    let (class, message) = match err {
        Error::Config(m) => ("ConfigError", m),
        Error::IllegalAction(m) => ("IllegalActionError", m),
        Error::Parse(m) => ("ParseError", m),
        Error::Value(m) => return PyValueError::new_err(cut(m)),
        Error::Memory(m) => return pyo3::exceptions::PyMemoryError::new_err(m),
    };
    let message = cut(message);
    Python::attach(
        |py| match py.import("tapete.errors").and_then(|m| m.getattr(class)) {
            Ok(cls) => match cls.call1((message,)) {
                Ok(instance) => PyErr::from_value(instance),
                Err(e) => e,
            },
            Err(e) => e,
        },
    )
}

trait OrPy<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> OrPy<T> for crate::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

fn cut(message: String) -> String {
    if message.chars().count() <= MAX_MESSAGE {
        return message;
    }
    let head: String = message.chars().take(MAX_MESSAGE).collect();
    format!("{head}… (message cut)")
}

fn config_error(message: String) -> PyErr {
    to_py(Error::Config(message))
}

fn parse_error(message: String) -> PyErr {
    to_py(Error::Parse(message))
}

/// A Python value for an error message: its `repr`, cut like every quoted input.
fn shown(value: &Bound<'_, PyAny>) -> String {
    if value.is_instance_of::<PyInt>() && value.extract::<i128>().is_err() {
        let bits = value
            .call_method0("bit_length")
            .and_then(|b| b.extract::<u64>())
            .unwrap_or(0);
        return format!("an integer of {bits} bits");
    }
    let text = value
        .repr()
        .map(|r| r.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "<unprintable>".into());
    let n = text.chars().count();
    if n <= 40 {
        text
    } else {
        format!(
            "{}… ({n} characters)",
            text.chars().take(40).collect::<String>()
        )
    }
}

/// A `str` argument; anything else, or a string that is not valid Unicode (a lone surrogate),
/// is the error `err` makes of the message.
fn text_arg(value: &Bound<'_, PyAny>, what: &str, err: fn(String) -> PyErr) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => s
            .to_str()
            .map(str::to_owned)
            .map_err(|_| err(format!("{what} is not valid Unicode: {}", shown(value)))),
        Err(_) => Err(err(format!("{what} must be a str, got {}", shown(value)))),
    }
}

/// How deep a config value may nest (lists in lists…): far more than any option needs.
const MAX_CONFIG_DEPTH: usize = 32;

/// A Python config value as JSON: `None`, `bool`, `int`, `float`, `str`, lists and tuples, dicts
/// with `str` keys, and numpy scalars like the Python values they hold. Anything else, a
/// non-finite float or a value nested too deeply is a `ConfigError`.
fn to_json(value: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_CONFIG_DEPTH {
        return Err(config_error(format!(
            "a config value may nest at most {MAX_CONFIG_DEPTH} deep"
        )));
    }
    if value.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if value.is_instance_of::<PyInt>() {
        if let Ok(i) = value.extract::<i64>() {
            return Ok(Value::from(i));
        }
        return match value.extract::<u64>() {
            Ok(u) => Ok(Value::from(u)),
            Err(_) => Err(config_error(format!(
                "config integer out of range: {}",
                shown(value)
            ))),
        };
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| config_error(format!("config number {} is not finite", shown(value))));
    }
    if value.is_instance_of::<PyString>() {
        return text_arg(value, "a config string", config_error).map(Value::String);
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return value
            .try_iter()?
            .map(|item| to_json(&item?, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if let Ok(d) = value.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let key = text_arg(&k, "a config key", config_error)?;
            map.insert(key, to_json(&v, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    // numpy scalars (np.int64, np.bool_, np.float32, ...) stand for the Python value they hold.
    let numpy_scalar = value
        .get_type()
        .module()
        .is_ok_and(|m| m.to_string_lossy() == "numpy")
        && value.hasattr("item").unwrap_or(false);
    if numpy_scalar {
        if let Ok(item) = value.call_method0("item") {
            if !item.get_type().is(value.get_type()) {
                return to_json(&item, depth + 1);
            }
        }
    }
    Err(config_error(format!(
        "a config value must be a bool, int, float, str, list or dict, got {}",
        shown(value)
    )))
}

fn to_py_value(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into_pyobject(py)?.into_any().unbind(),
            None => match n.as_u64() {
                Some(u) => u.into_pyobject(py)?.into_any().unbind(),
                None => n
                    .as_f64()
                    .unwrap_or(f64::NAN)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind(),
            },
        },
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py_value(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_py_value(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

fn fresh_seed() -> u64 {
    // The OS-seeded hasher keys of std: a fresh, unpredictable seed without another dependency.
    std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
}

fn seed_of(seed: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
    match seed {
        None => Ok(fresh_seed()),
        Some(s) if s.is_none() => Ok(fresh_seed()),
        Some(s) => seed_arg(s),
    }
}

/// The lock's guard; a panic while it was held (a bug) does not make the object unusable.
fn locked<T: ?Sized>(m: &Mutex<Box<T>>) -> MutexGuard<'_, Box<T>> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A Python bool or numpy's, which is no integer here although numpy 1 gives it `__index__`.
fn is_bool(value: &Bound<'_, PyAny>) -> bool {
    value.is_instance_of::<PyBool>()
        || value
            .get_type()
            .fully_qualified_name()
            .is_ok_and(|n| n.to_str().is_ok_and(|n| n.starts_with("numpy.bool")))
}

/// `value` as a Python int when it is an integer: an int or any type with `__index__`
/// (numpy's), but no bool; `None` otherwise. Seeds, counts and action ids all take these.
fn integer<'py>(value: &Bound<'py, PyAny>) -> Option<Bound<'py, PyAny>> {
    if is_bool(value) {
        None
    } else if value.is_instance_of::<PyInt>() {
        Some(value.clone())
    } else {
        value.call_method0("__index__").ok()
    }
}

/// An integer argument `0 <= value <= most` (`range` words it): any `integer`; a bool, any
/// other type or an integer out of range is a `ConfigError`, as for seeds.
fn count_arg(value: &Bound<'_, PyAny>, what: &str, most: u64, range: &str) -> PyResult<u64> {
    let bad = || {
        config_error(format!(
            "{what} must be an int {range}, got {}",
            shown(value)
        ))
    };
    integer(value)
        .ok_or_else(bad)?
        .extract::<u64>()
        .ok()
        .filter(|&v| v <= most)
        .ok_or_else(bad)
}

/// A seed argument: an int `0 <= seed < 2**64`.
fn seed_arg(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    count_arg(value, "seed", u64::MAX, "0 <= seed < 2**64")
}

/// An int `1 <= value <= most` (thread and env counts).
fn positive_arg(value: &Bound<'_, PyAny>, what: &str, most: u64) -> PyResult<u64> {
    let range = format!("1..={most}");
    match count_arg(value, what, most, &range)? {
        0 => Err(config_error(format!(
            "{what} must be an int {range}, got 0"
        ))),
        v => Ok(v),
    }
}

/// A native thread count, `1..=MAX_THREADS`.
fn threads_arg(value: &Bound<'_, PyAny>) -> PyResult<usize> {
    Ok(positive_arg(value, "threads", MAX_THREADS)? as usize)
}

fn card_list(value: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    unordered(
        value,
        &format!("{what} lists its cards in order, top card first"),
    )?;
    if value.is_instance_of::<PyString>() {
        return Err(config_error(format!(
            "{what} must be a sequence of card strings, not one string"
        )));
    }
    let bad = || config_error(format!("{what} must be a sequence of card strings"));
    value
        .try_iter()
        .map_err(|_| bad())?
        .map(|c| text_arg(&c?, "a card", config_error))
        .collect()
}

/// A `ConfigError` saying `rule` for a mapping or a set given where order matters (a deck,
/// the decks): any other iterable is read in its order.
fn unordered(value: &Bound<'_, PyAny>, rule: &str) -> PyResult<()> {
    let abc = value.py().import("collections.abc")?;
    if value.is_instance(&abc.getattr("Mapping")?)? || value.is_instance(&abc.getattr("Set")?)? {
        let kind = value.get_type().name()?;
        return Err(config_error(format!("{rule}, not a {kind}")));
    }
    Ok(())
}

/// Most games one `play_random` call plays: its results take 8·(players + 1) bytes a game, so
/// this bounds them to a few GB. Larger runs go in several calls (or `tapete selfplay`).
const MAX_PLAYOUTS: u64 = 100_000_000;
/// `current_player()` at the end and at a chance node (pyspiel's values).
const TERMINAL: i64 = -4;
const CHANCE: i64 = -1;
/// Most native threads a call may start.
const MAX_THREADS: u64 = 1024;

/// A game with its config.
#[pyclass(module = "tapete._core", name = "Game", frozen)]
pub struct PyGame {
    inner: Box<dyn DynGame>,
}

#[pymethods]
impl PyGame {
    /// The registry name of the game (``"spoil_five"``, ...).
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    /// The number of seats.
    fn num_players(&self) -> usize {
        self.inner.num_players()
    }

    /// The number of action ids: every action is an int in ``0 .. num_distinct_actions() - 1``.
    fn num_distinct_actions(&self) -> usize {
        self.inner.num_distinct_actions()
    }

    /// The shape of ``State.observation_tensor(seat)``.
    fn observation_tensor_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.observation_shape())
    }

    /// The most actions a game of this config can take.
    fn max_game_length(&self) -> usize {
        self.inner.max_game_length()
    }

    /// Chance outcome ids are `0..max_chance_outcomes()` (card ids, or first dealer seats).
    fn max_chance_outcomes(&self) -> usize {
        self.inner.max_chance_outcomes()
    }

    /// The least return a seat can end a game with (docs/rules/<game>.md, "Utility bounds").
    fn min_utility(&self) -> f64 {
        self.inner.utility_bounds().0
    }

    /// The greatest return a seat can end a game with.
    fn max_utility(&self) -> f64 {
        self.inner.utility_bounds().1
    }

    /// Every config option with its effective value (a dict ready for ``load_game``).
    fn config(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py_value(py, &self.inner.config())
    }

    /// The state at the start of a game: ``seed`` (an int in 0 … 2^64-1, drawn at random
    /// when None) determines everything left to chance; ``deck`` (the first deal's deck, top card
    /// first) or ``decks`` (the first deals' decks) replace what the seed would deal.
    #[pyo3(signature = (seed=None, deck=None, decks=None))]
    fn new_initial_state(
        &self,
        seed: Option<&Bound<'_, PyAny>>,
        deck: Option<&Bound<'_, PyAny>>,
        decks: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyState> {
        let seed = seed_of(seed)?;
        let decks: Vec<Vec<String>> = match (
            deck.filter(|d| !d.is_none()),
            decks.filter(|d| !d.is_none()),
        ) {
            (Some(_), Some(_)) => return Err(config_error("give deck or decks, not both".into())),
            (Some(d), None) => vec![card_list(d, "deck")?],
            (None, Some(ds)) => {
                unordered(ds, "decks are listed in order, the first deal's first")?;
                if ds.is_instance_of::<PyString>() {
                    return Err(config_error("decks must be a sequence of decks".into()));
                }
                ds.try_iter()
                    .map_err(|_| config_error("decks must be a sequence of decks".into()))?
                    .map(|d| card_list(&d?, "each deck"))
                    .collect::<PyResult<_>>()?
            }
            (None, None) => Vec::new(),
        };
        Ok(self.inner.new_state(seed, &decks).py_err()?.into())
    }

    /// Native random playouts of games `seed, seed + 1, …`, without the GIL, on `threads`
    /// threads (the results do not depend on it): the returns, shape (games, players), and
    /// the number of actions of each game.
    #[pyo3(
        signature = (games, seed=None, threads=None),
        text_signature = "(self, games, seed=0, threads=1)"
    )]
    fn play_random<'py>(
        &self,
        py: Python<'py>,
        games: &Bound<'py, PyAny>,
        seed: Option<&Bound<'py, PyAny>>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyArray1<u64>>)> {
        let n = self.inner.num_players();
        let games = count_arg(games, "games", MAX_PLAYOUTS, &format!("0..={MAX_PLAYOUTS}"))?;
        let seed = seed.map(seed_arg).transpose()?.unwrap_or(0);
        let threads = threads.map(threads_arg).transpose()?.unwrap_or(1);
        let games = games as usize;
        let alloc_error = || {
            pyo3::exceptions::PyMemoryError::new_err(format!(
                "play_random({games}) needs {} MB for its results: play fewer games per call",
                games * (n + 1) * 8 / 1_000_000
            ))
        };
        let mut returns: Vec<f64> = Vec::new();
        let mut lengths: Vec<u64> = Vec::new();
        returns
            .try_reserve_exact(games * n)
            .map_err(|_| alloc_error())?;
        lengths
            .try_reserve_exact(games)
            .map_err(|_| alloc_error())?;
        returns.resize(games * n, 0.0);
        lengths.resize(games, 0);
        py.detach(|| {
            self.inner
                .random_playouts(seed, threads, &mut returns, &mut lengths)
        })
        .py_err()?;
        let returns = PyArray1::from_vec(py, returns)
            .reshape([games, n])?
            .into_any();
        Ok((returns, PyArray1::from_vec(py, lengths)))
    }

    /// The state that ``State.serialize()`` wrote, replayed exactly; ParseError otherwise.
    fn deserialize_state(&self, data: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let text = text_arg(data, "a serialized state", parse_error)?;
        let state = self.inner.deserialize_state(&text).py_err()?;
        if !self.inner.owns(state.as_ref()) {
            return Err(to_py(Error::Parse(
                "the serialized state belongs to a game with another config".into(),
            )));
        }
        Ok(state.into())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyGame>().is_ok_and(|o| {
            let o = o.get();
            o.inner.name() == self.inner.name() && o.inner.config() == self.inner.config()
        })
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::hash::DefaultHasher::new();
        h.write(self.inner.name().as_bytes());
        h.write(self.inner.config().to_string().as_bytes());
        h.finish()
    }

    /// The call that loads this game, in Python: the options that differ from the defaults,
    /// but for those the others set (Spoil Five's `num_deals` follows `players`).
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let name = self.inner.name();
        let config = self.inner.config();
        let load = |options: &serde_json::Map<String, Value>| {
            registry::load_game(name, Value::Object(options.clone())).map(|g| g.config())
        };
        let (Value::Object(all), Ok(Value::Object(default))) =
            (&config, load(&serde_json::Map::new()))
        else {
            return Ok(format!("load_game({name:?})"));
        };
        let mut given: serde_json::Map<String, Value> = all
            .iter()
            .filter(|(key, value)| default.get(*key) != Some(value))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        for key in given.keys().cloned().collect::<Vec<_>>() {
            let mut fewer = given.clone();
            fewer.remove(&key);
            if load(&fewer).is_ok_and(|c| c == config) {
                given = fewer;
            }
        }
        let mut args = vec![PyString::new(py, name).repr()?.to_string()];
        for (key, value) in &given {
            args.push(format!(
                "{key}={}",
                to_py_value(py, value)?.bind(py).repr()?
            ));
        }
        Ok(format!("load_game({})", args.join(", ")))
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (String, String))> {
        let f = py
            .import("tapete._core")?
            .getattr("_game_from_json")?
            .unbind();
        Ok((
            f,
            (
                self.inner.name().to_string(),
                self.inner.config().to_string(),
            ),
        ))
    }
}

/// A state of a game.
#[pyclass(module = "tapete._core", name = "State")]
pub struct PyState {
    inner: Box<dyn DynState>,
    /// Each seat's information state string once asked, until the next action: asked again,
    /// the same str is returned rather than a new copy of a transcript that grows all match.
    info: Mutex<Vec<Option<Py<PyString>>>>,
}

impl From<Box<dyn DynState>> for PyState {
    fn from(inner: Box<dyn DynState>) -> Self {
        PyState {
            inner,
            info: Mutex::new(Vec::new()),
        }
    }
}

impl PyState {
    fn seat(&self, player: &Bound<'_, PyAny>) -> PyResult<usize> {
        let n = self.inner.num_players();
        // An int, or what takes its place (numpy's): not a bool, nor an array.
        let is_int = !player.is_instance_of::<PyBool>()
            && (player.is_instance_of::<PyInt>() || player.call_method0("__index__").is_ok());
        let why = if is_int {
            "is out of range"
        } else {
            "is not an int"
        };
        player
            .extract::<usize>()
            .ok()
            .filter(|&p| is_int && p < n)
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "seat {} {why}: this game has seats 0..{}",
                    shown(player),
                    n - 1
                ))
            })
    }

    fn action(&self, action: &Bound<'_, PyAny>) -> PyResult<usize> {
        let bad = || {
            to_py(Error::IllegalAction(format!(
                "action must be an int id, got {}",
                shown(action)
            )))
        };
        // Any integer type (numpy's too, as `random_actions` gives them).
        let action = integer(action).ok_or_else(bad)?;
        match action.extract::<i64>() {
            Ok(id) => usize::try_from(id)
                .map_err(|_| to_py(Error::IllegalAction(format!("action id {id} is negative")))),
            Err(_) => Err(to_py(Error::IllegalAction(format!(
                "action id {} is out of range",
                shown(&action)
            )))),
        }
    }
}

#[pymethods]
impl PyState {
    /// The seat to act, or ``tapete.TERMINAL`` (-4) once the game is over.
    fn current_player(&self) -> i64 {
        if self.inner.is_chance_node() {
            return CHANCE;
        }
        self.inner.current_player().map_or(TERMINAL, |p| p as i64)
    }

    /// Whether the game is over.
    fn is_terminal(&self) -> bool {
        self.inner.is_terminal()
    }

    /// Whether chance acts next (`current_player() == CHANCE`); always False unless the game was
    /// loaded with `explicit_chance=True`.
    fn is_chance_node(&self) -> bool {
        self.inner.is_chance_node()
    }

    /// At a chance node, `(outcome id, probability)` pairs, ascending; empty elsewhere.
    fn chance_outcomes(&self) -> Vec<(usize, f64)> {
        self.inner.chance_outcomes()
    }

    /// The action ids the current player may take, ascending (empty at the end).
    fn legal_actions(&self) -> Vec<usize> {
        let mut out = Vec::with_capacity(16);
        self.inner.legal_actions(&mut out);
        out
    }

    /// A numpy bool array: True for each legal action; of size `num_distinct_actions`, or at a
    /// chance node `max_chance_outcomes` (pyspiel's convention: the chance player's outcomes).
    fn legal_actions_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<bool>> {
        let mut legal = Vec::with_capacity(16);
        self.inner.legal_actions(&mut legal);
        let game = self.inner.game();
        let size = if self.inner.is_chance_node() {
            game.max_chance_outcomes()
        } else {
            game.num_distinct_actions()
        };
        let mut mask = vec![false; size];
        for a in legal {
            mask[a] = true;
        }
        PyArray1::from_vec(py, mask)
    }

    /// Applies a legal action id; an illegal one is an IllegalActionError saying why
    /// (``explain_illegal``), and the state is unchanged.
    fn apply_action(&mut self, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let id = self.action(action)?;
        self.inner.apply(id).py_err()?;
        self.info
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        Ok(())
    }

    /// Why ``action`` is not legal now, in words for the current player (their own cards and
    /// the public table only), followed by the legal actions; ``None`` when it is legal. The
    /// message of the IllegalActionError that ``apply_action(action)`` would raise.
    fn explain_illegal(&self, action: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let id = self.action(action)?;
        self.inner.explain_illegal(id).py_err()
    }

    /// The canonical text of an action id (``"play 10D"``).
    fn action_to_string(&self, action: &Bound<'_, PyAny>) -> PyResult<String> {
        let id = self.action(action)?;
        self.inner.action_to_string(id).py_err()
    }

    /// The action id of an action text (case-insensitive); ParseError otherwise.
    fn string_to_action(&self, text: &Bound<'_, PyAny>) -> PyResult<usize> {
        let text = text_arg(text, "an action text", parse_error)?;
        self.inner.string_to_action(&text).py_err()
    }

    /// Every seat's return so far (the final ones at the end), in the game's unit.
    fn returns(&self) -> Vec<f64> {
        self.inner.returns()
    }

    /// Every seat's reward for the last action (zeros before the first): the rewards of a
    /// game add up to its returns.
    fn rewards(&self) -> Vec<f64> {
        self.inner.rewards()
    }

    /// What ``player`` may know, as a numpy float32 array of ``observation_tensor_shape()``
    /// (layout: docs/rules/<game>.md).
    fn observation_tensor<'py>(
        &self,
        py: Python<'py>,
        player: &Bound<'_, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let seat = self.seat(player)?;
        let mut out = vec![0f32; self.inner.observation_len()];
        self.inner.observe(seat, &mut out).py_err()?;
        let shape = self.inner.game().observation_shape();
        Ok(PyArray1::from_vec(py, out).reshape(shape)?.into_any())
    }

    /// The table as ``player`` sees it, drawn as text.
    fn observation_string(&self, player: &Bound<'_, PyAny>) -> PyResult<String> {
        self.inner.observation_string(self.seat(player)?).py_err()
    }

    /// Everything ``player`` has seen, in order: its perfect-recall information state.
    fn information_state_string(&self, player: &Bound<'_, PyAny>) -> PyResult<Py<PyString>> {
        let seat = self.seat(player)?;
        let py = player.py();
        let mut info = self.info.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Some(text)) = info.get(seat) {
            return Ok(text.clone_ref(py));
        }
        let mut text = None;
        self.inner
            .with_information_state(seat, &mut |s| text = Some(PyString::new(py, s).unbind()))
            .py_err()?;
        let text = text.expect("with_information_state calls back once it succeeds");
        if info.len() <= seat {
            info.resize_with(seat + 1, || None);
        }
        info[seat] = Some(text.clone_ref(py));
        Ok(text)
    }

    /// A JSON-ready dict of what ``player`` may know (None: everything); layout on each
    /// rules page.
    #[pyo3(signature = (player=None))]
    fn view(&self, py: Python<'_>, player: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let seat = player
            .filter(|p| !p.is_none())
            .map(|p| self.seat(p))
            .transpose()?;
        to_py_value(py, &self.inner.view(seat).py_err()?)
    }

    /// The action ids applied so far, in order.
    fn history(&self) -> Vec<usize> {
        self.inner.history()
    }

    /// An independent copy of the state.
    fn clone(&self) -> PyState {
        self.inner.clone_box().into()
    }

    /// The state as a JSON string that ``Game.deserialize_state`` replays exactly.
    fn serialize(&self) -> String {
        self.inner.serialize()
    }

    /// A state ``player`` cannot tell from this one (the cards it has not seen dealt again,
    /// uniformly over the consistent deals), drawn from ``seed``: for search.
    fn resample_from_infostate(
        &self,
        player: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
    ) -> PyResult<PyState> {
        let seat = self.seat(player)?;
        let seed = seed_of(Some(seed))?;
        Ok(self.inner.resample(seat, seed).py_err()?.into())
    }

    /// The game (with its config) of this state.
    fn get_game(&self) -> PyGame {
        PyGame {
            inner: self.inner.game(),
        }
    }

    /// The number of seats.
    fn num_players(&self) -> usize {
        self.inner.num_players()
    }

    fn __copy__(&self) -> PyState {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyState {
        self.clone()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyState>()
            .is_ok_and(|o| o.borrow().inner.eq_dyn(self.inner.as_ref()))
    }

    fn __str__(&self) -> String {
        self.inner.render()
    }

    fn __repr__(&self) -> String {
        format!(
            "<{} state: {} actions, {}>",
            self.inner.game().name(),
            self.inner.history().len(),
            match self.inner.current_player() {
                Some(p) => format!("seat {p} to act"),
                None if self.inner.is_chance_node() => "chance to act".to_string(),
                None => "over".to_string(),
            }
        )
    }

    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, (String,))> {
        let f = py
            .import("tapete._core")?
            .getattr("_state_from_json")?
            .unbind();
        Ok((f, (self.inner.serialize(),)))
    }
}

/// The registered games' names.
#[pyfunction]
fn list_games() -> Vec<&'static str> {
    registry::list_games()
}

/// A game by registry name with its options as keywords
/// (``load_game("spoil_five", players=5, jinking=False)``); ConfigError on a bad name or option.
#[pyfunction]
#[pyo3(signature = (name, /, **config))]
fn load_game(name: &Bound<'_, PyAny>, config: Option<&Bound<'_, PyDict>>) -> PyResult<PyGame> {
    let name = text_arg(name, "a game name", config_error)?;
    let config = match config {
        Some(c) => to_json(c.as_any(), 0)?,
        None => Value::Null,
    };
    Ok(PyGame {
        inner: registry::load_game(&name, config).py_err()?,
    })
}

#[pyfunction]
fn _game_from_json(name: &Bound<'_, PyAny>, config: &Bound<'_, PyAny>) -> PyResult<PyGame> {
    let name = &text_arg(name, "a game name", parse_error)?;
    let config = &text_arg(config, "a config", parse_error)?;
    let config: Value =
        serde_json::from_str(config).map_err(|e| to_py(Error::Parse(e.to_string())))?;
    Ok(PyGame {
        inner: registry::load_game(name, config).py_err()?,
    })
}

#[pyfunction]
fn _state_from_json(data: &Bound<'_, PyAny>) -> PyResult<PyState> {
    let data = &text_arg(data, "a serialized state", parse_error)?;
    Ok(registry::read_state(data).py_err()?.into())
}

// Spoil Five evaluators.

fn french(text: &str) -> PyResult<u8> {
    cards::FRENCH_SPOIL_FIVE.parse(text).py_err()
}

fn text(value: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    text_arg(value, what, parse_error)
}

fn texts(values: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<String>> {
    let bad = || {
        to_py(Error::Parse(format!(
            "{what} must be a sequence of card strings"
        )))
    };
    if values.is_instance_of::<PyString>() {
        return Err(bad());
    }
    values
        .try_iter()
        .map_err(|_| bad())?
        .map(|v| text(&v?, "a card"))
        .collect()
}

fn trump_suit(trump: &Bound<'_, PyAny>) -> PyResult<u8> {
    let trump = text(trump, "the trump suit")?;
    match trump.trim().to_ascii_uppercase().as_str() {
        "C" => Ok(0),
        "D" => Ok(1),
        "H" => Ok(2),
        "S" => Ok(3),
        _ => Err(to_py(Error::Parse(format!(
            "{trump:?} is not a suit: expected C, D, H or S"
        )))),
    }
}

fn distinct_cards(cards: &[String], what: &str) -> PyResult<Vec<u8>> {
    let ids = cards
        .iter()
        .map(|c| french(c))
        .collect::<PyResult<Vec<u8>>>()?;
    let mut seen = 0u64;
    for &c in &ids {
        if seen & (1 << c) != 0 {
            return Err(PyValueError::new_err(format!(
                "{what}: {} appears twice",
                cards::FRENCH_SPOIL_FIVE.name_of(c)
            )));
        }
        seen |= 1 << c;
    }
    Ok(ids)
}

#[pyfunction]
fn spoil_five_trump_order(trump: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let t = trump_suit(trump)?;
    Ok(spoil_five::trump_order(t)
        .into_iter()
        .map(|c| cards::FRENCH_SPOIL_FIVE.name_of(c))
        .collect())
}

#[pyfunction]
fn spoil_five_trick_winner(trump: &Bound<'_, PyAny>, cards: &Bound<'_, PyAny>) -> PyResult<usize> {
    let t = trump_suit(trump)?;
    let cards = texts(cards, "cards")?;
    let ids = distinct_cards(&cards, "trick")?;
    if ids.is_empty() || ids.len() > spoil_five::MAX_PLAYERS {
        return Err(PyValueError::new_err(format!(
            "a trick has 1 to 10 cards, got {}",
            ids.len()
        )));
    }
    Ok(spoil_five::trick_winner(t, &ids))
}

#[pyfunction]
fn spoil_five_legal_plays(
    trump: &Bound<'_, PyAny>,
    hand: &Bound<'_, PyAny>,
    trick: &Bound<'_, PyAny>,
) -> PyResult<Vec<String>> {
    let t = trump_suit(trump)?;
    let (hand, trick) = (texts(hand, "hand")?, texts(trick, "trick")?);
    let hand_ids = distinct_cards(&hand, "hand")?;
    let trick_ids = distinct_cards(&trick, "trick")?;
    if hand_ids.is_empty() || hand_ids.len() > 5 || trick_ids.len() >= spoil_five::MAX_PLAYERS {
        return Err(PyValueError::new_err(
            "a hand has 1 to 5 cards and a trick at most 9 before this play",
        ));
    }
    let hand_set = hand_ids.iter().fold(0u64, |m, &c| m | (1 << c));
    if trick_ids.iter().any(|&c| hand_set & (1 << c) != 0) {
        return Err(PyValueError::new_err(
            "a card cannot be both in the hand and in the trick",
        ));
    }
    let legal = spoil_five::legal_plays(t, hand_set, &trick_ids, RenegeReference::LedCard);
    Ok(cards::ids(legal)
        .map(|c| cards::FRENCH_SPOIL_FIVE.name_of(c))
        .collect())
}

// Cicera evaluators.

fn cicera_cards(values: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    let mut set = 0u64;
    for text in texts(values, what)? {
        let c = cards::FRENCH_CICERA.parse(&text).py_err()?;
        if set & (1 << c) != 0 {
            return Err(PyValueError::new_err(format!(
                "{what}: {} appears twice",
                cards::FRENCH_CICERA.name_of(c)
            )));
        }
        set |= 1 << c;
    }
    Ok(set)
}

fn cicera_names(set: u64) -> Vec<String> {
    cards::ids(set)
        .map(|c| cards::FRENCH_CICERA.name_of(c))
        .collect()
}

#[pyfunction]
#[pyo3(signature = (table, card, force_single_match = false))]
fn cicera_captures(
    table: &Bound<'_, PyAny>,
    card: &Bound<'_, PyAny>,
    force_single_match: bool,
) -> PyResult<Vec<Vec<String>>> {
    let table = cicera_cards(table, "table")?;
    let card = cards::FRENCH_CICERA
        .parse(&text(card, "the played card")?)
        .py_err()?;
    if table & (1 << card) != 0 {
        return Err(PyValueError::new_err(
            "the played card cannot also be on the table",
        ));
    }
    Ok(cicera::captures(table, card, force_single_match)
        .into_iter()
        .map(cicera_names)
        .collect())
}

#[pyfunction]
fn cicera_score_hand(
    py: Python<'_>,
    team0: &Bound<'_, PyAny>,
    team1: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let piles = [cicera_cards(team0, "team0")?, cicera_cards(team1, "team1")?];
    if piles[0] & piles[1] != 0 {
        return Err(PyValueError::new_err("a card cannot be in both piles"));
    }
    to_py_value(
        py,
        &cicera::score_piles(piles, cicera::Scoring::default()).to_json(false),
    )
}

// Cau Robat evaluator.

fn cau_robat_rank(value: &Bound<'_, PyAny>) -> PyResult<usize> {
    let bad = || {
        PyValueError::new_err(format!(
            "{} is not a rank: expected 1-7, 10, 11 or 12",
            shown(value)
        ))
    };
    if value.is_instance_of::<PyBool>() {
        return Err(bad());
    }
    let v: i64 = value.extract().map_err(|_| bad())?;
    cau_robat::RANK_VALUES
        .iter()
        .position(|&x| x as i64 == v)
        .ok_or_else(bad)
}

#[pyfunction]
fn cau_robat_run(table_ranks: &Bound<'_, PyAny>, rank: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let mut table = 0u16;
    let items = table_ranks
        .try_iter()
        .map_err(|_| PyValueError::new_err("table_ranks must be a sequence of ranks"))?;
    for item in items {
        let r = cau_robat_rank(&item?)?;
        if table & (1 << r) != 0 {
            return Err(PyValueError::new_err(format!(
                "rank {} is twice on the table",
                cau_robat::RANK_VALUES[r]
            )));
        }
        table |= 1 << r;
    }
    let run = cau_robat::table_run(table, cau_robat_rank(rank)?);
    Ok((0..10)
        .filter(|r| run & (1 << r) != 0)
        .map(|r| u32::from(cau_robat::RANK_VALUES[r]))
        .collect())
}

/// A multiset of Cuajo cards as counts, with `n` cards (one of `sizes`; any if empty).
fn cuajo_counts(cards: &Bound<'_, PyAny>, sizes: &[usize]) -> PyResult<cuajo::eval::Counts> {
    let mut counts = [0u8; cuajo::eval::KINDS];
    let names = texts(cards, "cards")?;
    for c in &names {
        let k = cards::CUAJO_112.parse(c).py_err()?;
        counts[k as usize] += 1;
        if counts[k as usize] > 4 {
            return Err(PyValueError::new_err(format!(
                "{c} appears more than four times: the pack has four of each card"
            )));
        }
    }
    if !sizes.is_empty() && !sizes.contains(&names.len()) {
        let want: Vec<String> = sizes.iter().map(ToString::to_string).collect();
        return Err(PyValueError::new_err(format!(
            "expected {} cards, got {}",
            want.join(" or "),
            names.len()
        )));
    }
    Ok(counts)
}

fn cuajo_names(kinds: impl Iterator<Item = u8>) -> Vec<String> {
    kinds.map(|k| cards::CUAJO_112.name_of(k)).collect()
}

#[pyfunction]
fn cuajo_is_complete(cards: &Bound<'_, PyAny>) -> PyResult<bool> {
    let c = cuajo_counts(cards, &[16])?;
    Ok(cuajo::eval::partitionable(&c, cuajo::eval::Melds::DEFAULT))
}

#[pyfunction]
fn cuajo_arrangement(cards: &Bound<'_, PyAny>) -> PyResult<Option<Vec<Vec<String>>>> {
    let c = cuajo_counts(cards, &[16])?;
    Ok(
        cuajo::eval::arrangement(&c, cuajo::eval::Melds::DEFAULT).map(|groups| {
            groups
                .into_iter()
                .map(|g| cuajo_names(g.into_iter()))
                .collect()
        }),
    )
}

#[pyfunction]
#[pyo3(signature = (cards, *, undeclared_quad_valid=true, sowee_triple=None))]
fn cuajo_best_arrangement(
    cards: &Bound<'_, PyAny>,
    undeclared_quad_valid: bool,
    sowee_triple: Option<&Bound<'_, PyAny>>,
) -> PyResult<(Vec<Vec<String>>, Vec<String>)> {
    let c = cuajo_counts(cards, &[])?;
    let triple = match sowee_triple {
        Some(w) => Some(cards::CUAJO_112.parse(&text(w, "the sowee")?).py_err()?),
        None => None,
    };
    let melds = cuajo::eval::Melds {
        quads: undeclared_quad_valid,
        triple,
    };
    let (groups, left) = cuajo::eval::best_arrangement(&c, melds);
    let left = (0..28u8).flat_map(|k| std::iter::repeat_n(k, left[k as usize] as usize));
    Ok((
        groups
            .into_iter()
            .map(|g| cuajo_names(g.into_iter()))
            .collect(),
        cuajo_names(left),
    ))
}

#[pyfunction]
#[pyo3(signature = (cards, sowee=None))]
fn cuajo_waits(
    cards: &Bound<'_, PyAny>,
    sowee: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<String>> {
    let c = cuajo_counts(cards, &[15])?;
    let sowee = match sowee {
        Some(w) => Some(cards::CUAJO_112.parse(&text(w, "the sowee")?).py_err()? as usize),
        None => None,
    };
    if let Some(w) = sowee.filter(|&w| c[w] > 3) {
        return Err(PyValueError::new_err(format!(
            "four {} with {} as the sowee: only three copies are in play",
            cards::CUAJO_112.name_of(w as u8),
            cards::CUAJO_112.name_of(w as u8)
        )));
    }
    let copies = |k: usize| if Some(k) == sowee { 3 } else { 4 };
    let w = cuajo::eval::waits(&c, &c, copies, cuajo::eval::Melds::DEFAULT);
    Ok(cuajo_names((0..28u8).filter(|&k| w & (1 << k) != 0)))
}

#[pyfunction]
fn cuajo_distance(cards: &Bound<'_, PyAny>) -> PyResult<u8> {
    let c = cuajo_counts(cards, &[15, 16])?;
    Ok(cuajo::eval::distance(&c))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyGame>()?;
    m.add_class::<PyState>()?;
    m.add_class::<vector::PyVectorEnv>()?;
    m.add_class::<bots::PyBot>()?;
    m.add_function(wrap_pyfunction!(bots::make_bot, m)?)?;
    m.add_function(wrap_pyfunction!(bots::_bot_at, m)?)?;
    m.add_function(wrap_pyfunction!(bots::bot_seed, m)?)?;
    m.add_function(wrap_pyfunction!(bots::bot_names, m)?)?;
    m.add_function(wrap_pyfunction!(bots::arena, m)?)?;
    m.add_function(wrap_pyfunction!(list_games, m)?)?;
    m.add_function(wrap_pyfunction!(load_game, m)?)?;
    m.add_function(wrap_pyfunction!(_game_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(_state_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(spoil_five_trump_order, m)?)?;
    m.add_function(wrap_pyfunction!(spoil_five_trick_winner, m)?)?;
    m.add_function(wrap_pyfunction!(spoil_five_legal_plays, m)?)?;
    m.add_function(wrap_pyfunction!(cicera_captures, m)?)?;
    m.add_function(wrap_pyfunction!(cicera_score_hand, m)?)?;
    m.add_function(wrap_pyfunction!(cau_robat_run, m)?)?;
    m.add_function(wrap_pyfunction!(cuajo_is_complete, m)?)?;
    m.add_function(wrap_pyfunction!(cuajo_arrangement, m)?)?;
    m.add_function(wrap_pyfunction!(cuajo_best_arrangement, m)?)?;
    m.add_function(wrap_pyfunction!(cuajo_waits, m)?)?;
    m.add_function(wrap_pyfunction!(cuajo_distance, m)?)?;
    m.add("TERMINAL", TERMINAL)?;
    m.add("ARENA_MAX_DEALS", bots::MAX_DEALS)?;
    m.add("CHANCE", CHANCE)?;
    Ok(())
}
