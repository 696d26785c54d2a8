//! `tapete._core.Bot`, `make_bot`, `arena` and `bot_seed`: the native bots and the duplicate
//! arena of `crate::bots`, run without the GIL. `tapete/bots.py` and `tapete/arena.py` add the
//! typed Python surface.

use super::{
    config_error, count_arg, locked, seed_arg, text_arg, threads_arg, OrPy, PyGame, PyState,
};
use crate::bots::{DynBot, Spec};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyString;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Most deals one native arena call plays (its results take 8·(players + 1) bytes a deal).
pub const MAX_DEALS: u64 = 10_000_000;

fn spec_arg(spec: &Bound<'_, PyAny>) -> PyResult<Spec> {
    Spec::parse(&text_arg(spec, "a bot spec", config_error)?).py_err()
}

/// A native bot: `choose(state)` gives a legal action for the seat to act, never changing
/// the state.
///
/// Safe to share between threads: a search runs on a thread of its own, on a copy of the
/// state (so that other threads may go on with the original), holding the bot's lock, so that
/// two threads asking the same bot take turns; the caller waits without the GIL and stops at
/// a signal (Ctrl-C). The other bots take microseconds and keep the GIL.
#[pyclass(module = "tapete._core", name = "Bot", frozen)]
pub struct PyBot {
    inner: Arc<Mutex<Box<dyn DynBot>>>,
    name: String,
    searches: bool,
    game: Py<PyGame>,
}

#[pymethods]
impl PyBot {
    /// The bot's spec, as given.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// A legal action id for ``state.current_player()``, chosen from what that seat may know;
    /// ``state`` is not changed.
    fn choose(&self, py: Python<'_>, state: PyRef<'_, PyState>) -> PyResult<usize> {
        if !self.searches {
            // With the GIL held throughout, no other thread can hold the lock.
            return locked(&self.inner).choose(state.inner.as_ref()).py_err();
        }
        let copy = state.inner.clone_box();
        drop(state);
        // The search runs on a thread of its own while this one waits without the GIL and
        // looks for signals: Ctrl-C stops the wait at once (the search finishes unseen).
        let bot = Arc::clone(&self.inner);
        let (done, mut result) = mpsc::channel();
        std::thread::spawn(move || done.send(locked(&bot).choose(copy.as_ref())));
        loop {
            let got;
            (got, result) =
                py.detach(move || (result.recv_timeout(Duration::from_millis(20)), result));
            match got {
                Ok(action) => return action.py_err(),
                Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err("the search stopped with no move"))
                }
            }
        }
    }

    fn __repr__(&self) -> String {
        format!("Bot({:?})", self.name)
    }

    /// Pickled as its spec, game and the point its random stream has reached: the copy
    /// chooses as the bot would from here (an env holding bots can be copied or sent).
    fn __reduce__(&self, py: Python<'_>) -> PyResult<(Py<PyAny>, BotAt)> {
        let make = py.import("tapete._core")?.getattr("_bot_at")?.unbind();
        let at = locked(&self.inner).rng_state();
        Ok((make, (self.name.clone(), self.game.clone_ref(py), at)))
    }
}

/// What `_bot_at` remakes a bot from: its spec, its game and where its stream is.
type BotAt = (String, Py<PyGame>, u64);

/// The bot of `spec` for `game` whose random stream is at `at` (`Bot.__reduce__`).
#[pyfunction]
pub fn _bot_at(spec: &Bound<'_, PyAny>, game: PyRef<'_, PyGame>, at: u64) -> PyResult<PyBot> {
    make(spec, game, at)
}

#[pyfunction]
#[pyo3(signature = (spec, game, seed))]
pub fn make_bot(
    spec: &Bound<'_, PyAny>,
    game: PyRef<'_, PyGame>,
    seed: &Bound<'_, PyAny>,
) -> PyResult<PyBot> {
    make(spec, game, seed_arg(seed)?)
}

fn make(spec: &Bound<'_, PyAny>, game: PyRef<'_, PyGame>, seed: u64) -> PyResult<PyBot> {
    let parsed = spec_arg(spec)?;
    Ok(PyBot {
        searches: matches!(parsed, Spec::Ismcts(_)),
        inner: Arc::new(Mutex::new(game.inner.bot(&parsed, seed))),
        name: spec.cast::<PyString>()?.to_str()?.to_owned(),
        game: game.into(),
    })
}

/// The native bots' names.
#[pyfunction]
pub fn bot_names() -> Vec<&'static str> {
    crate::bots::spec::NAMES.to_vec()
}

/// The seed of entry `entry`'s bot in rotation `rotation` of deal `deal` (`crate::bots::bot_seed`).
#[pyfunction]
pub fn bot_seed(
    seed: &Bound<'_, PyAny>,
    deal: &Bound<'_, PyAny>,
    rotation: &Bound<'_, PyAny>,
    entry: &Bound<'_, PyAny>,
) -> PyResult<u64> {
    let arg = |v, what| count_arg(v, what, u64::MAX, "0 <= value < 2**64");
    Ok(crate::bots::bot_seed(
        arg(seed, "seed")?,
        arg(deal, "deal")?,
        arg(rotation, "rotation")?,
        arg(entry, "entry")?,
    ))
}

type ArenaArrays<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyArray1<u64>>,
    Option<Vec<(u64, usize, Vec<usize>)>>,
);

/// The native duplicate arena on deals `first .. first + deals`: per-deal values
/// `(deals, entries)`, game lengths, and the games' actions when `keep_games`.
#[pyfunction]
#[pyo3(signature = (game, specs, first, deals, seed, threads, duplicate, keep_games))]
#[allow(clippy::too_many_arguments)]
pub fn arena<'py>(
    py: Python<'py>,
    game: PyRef<'py, PyGame>,
    specs: Vec<Bound<'py, PyAny>>,
    first: &Bound<'py, PyAny>,
    deals: &Bound<'py, PyAny>,
    seed: &Bound<'py, PyAny>,
    threads: &Bound<'py, PyAny>,
    duplicate: bool,
    keep_games: bool,
) -> PyResult<ArenaArrays<'py>> {
    let specs = specs.iter().map(spec_arg).collect::<PyResult<Vec<_>>>()?;
    let first = count_arg(first, "first deal", u64::MAX, "0 <= first < 2**64")?;
    let deals = count_arg(deals, "games", MAX_DEALS, &format!("0..={MAX_DEALS}"))?;
    let seed = seed_arg(seed)?;
    let threads = threads_arg(threads)?;
    let entries = specs.len();
    let inner = game.inner.as_ref();
    let outcome = py
        .detach(|| inner.arena(&specs, first, deals, seed, threads, duplicate, keep_games))
        .py_err()?;
    let values = PyArray1::from_vec(py, outcome.values)
        .reshape([deals as usize, entries])?
        .into_any();
    Ok((
        values,
        PyArray1::from_vec(py, outcome.lengths),
        outcome.games,
    ))
}
