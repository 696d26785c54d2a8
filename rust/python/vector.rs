//! `tapete._core.VectorEnv`: the batch environment of `crate::batch` over fresh numpy buffers,
//! stepped without the GIL. `tapete/vector.py` adds the typed `Batch` and the argument checks
//! numpy does best (dtype, shape).

use super::{config_error, positive_arg, seed_arg, text_arg, threads_arg, OrPy, PyGame, PyState};
use crate::batch::{Autoreset, DynVectorEnv, Observe, Out, Settings, MAX_ENVS};
use numpy::ndarray::IxDyn;
use numpy::{PyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;

#[pyclass(module = "tapete._core", name = "VectorEnv")]
pub struct PyVectorEnv {
    inner: Box<dyn DynVectorEnv>,
    observe: Observe,
    obs_shape: Vec<usize>,
    seats: usize,
    actions: usize,
}

/// The arrays of one batch: observation (or None), legal_mask, current_player, rewards,
/// terminated, episode.
type BatchArrays<'py> = (
    Option<Bound<'py, PyArray<f32, IxDyn>>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<i32>>,
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<i64>>,
);

impl PyVectorEnv {
    /// Fresh arrays, every value written by `fill` without the GIL.
    fn batch<'py>(
        &mut self,
        py: Python<'py>,
        fill: impl FnOnce(&mut dyn DynVectorEnv, Out<'_>) -> crate::Result<()> + Send,
    ) -> PyResult<BatchArrays<'py>> {
        let n = self.inner.num_envs();
        let mut dims = vec![n];
        match self.observe {
            Observe::Current => dims.extend(&self.obs_shape),
            Observe::All => {
                dims.push(self.seats);
                dims.extend(&self.obs_shape)
            }
            Observe::Nothing => {}
        }
        let observation = (self.observe != Observe::Nothing)
            .then(|| unsafe { PyArray::<f32, _>::new(py, IxDyn(&dims), false) });
        // SAFETY (the `new` calls): uninitialised arrays, every element of which the env writes
        // (`crate::batch::Out`) before they are returned.
        let legal_mask = unsafe { PyArray2::<bool>::new(py, [n, self.actions], false) };
        let current_player = unsafe { PyArray1::<i32>::new(py, n, false) };
        let rewards = unsafe { PyArray2::<f32>::new(py, [n, self.seats], false) };
        let terminated = unsafe { PyArray1::<bool>::new(py, n, false) };
        let episode = unsafe { PyArray1::<i64>::new(py, n, false) };
        // SAFETY: the arrays were just created, are contiguous, and nothing else refers to them
        // until they are returned.
        let out = unsafe {
            Out {
                observation: match &observation {
                    Some(o) => o.as_slice_mut()?,
                    None => &mut [],
                },
                legal_mask: legal_mask.as_slice_mut()?,
                current_player: current_player.as_slice_mut()?,
                rewards: rewards.as_slice_mut()?,
                terminated: terminated.as_slice_mut()?,
                episode: episode.as_slice_mut()?,
            }
        };
        let inner = self.inner.as_mut();
        py.detach(|| fill(inner, out)).py_err()?;
        Ok((
            observation,
            legal_mask,
            current_player,
            rewards,
            terminated,
            episode,
        ))
    }
}

#[pymethods]
impl PyVectorEnv {
    #[new]
    #[pyo3(signature = (game, num_envs, seed, threads, observe, autoreset))]
    fn new(
        game: PyRef<'_, PyGame>,
        num_envs: &Bound<'_, PyAny>,
        seed: &Bound<'_, PyAny>,
        threads: &Bound<'_, PyAny>,
        observe: &Bound<'_, PyAny>,
        autoreset: &Bound<'_, PyAny>,
    ) -> PyResult<Self> {
        let num_envs = positive_arg(num_envs, "num_envs", MAX_ENVS as u64)? as usize;
        let seed = seed_arg(seed)?;
        let threads = threads_arg(threads)?;
        let observe = Observe::parse(&text_arg(observe, "observe", config_error)?).py_err()?;
        let autoreset =
            Autoreset::parse(&text_arg(autoreset, "autoreset", config_error)?).py_err()?;
        let settings = Settings {
            num_envs,
            seed,
            threads,
            observe,
            autoreset,
        };
        let inner = game.inner.vector_env(settings).py_err()?;
        Ok(PyVectorEnv {
            inner,
            observe,
            obs_shape: game.inner.observation_shape(),
            seats: game.inner.num_players(),
            actions: game.inner.num_distinct_actions(),
        })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.inner.num_envs()
    }

    #[getter]
    fn game(&self) -> PyGame {
        PyGame {
            inner: self.inner.game(),
        }
    }

    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<BatchArrays<'py>> {
        let seed = match seed.filter(|s| !s.is_none()) {
            Some(s) => Some(seed_arg(s)?),
            None => None,
        };
        self.batch(py, move |env, out| {
            env.reset(seed, out);
            Ok(())
        })
    }

    /// `actions`: int64, shape (num_envs,), contiguous (`tapete.VectorEnv` converts).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<BatchArrays<'py>> {
        let actions = actions.as_slice()?;
        self.batch(py, move |env, out| env.step(actions, out))
    }

    fn random_actions<'py>(
        &self,
        py: Python<'py>,
        seed: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let seed = seed_arg(seed)?;
        let mut out = vec![0; self.inner.num_envs()];
        self.inner.random_actions(seed, &mut out);
        Ok(PyArray1::from_vec(py, out))
    }

    fn state(&self, env: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let n = self.inner.num_envs();
        let bad = || {
            pyo3::exceptions::PyIndexError::new_err(format!(
                "env {} is out of range: this batch has envs 0..{}",
                super::shown(env),
                n - 1
            ))
        };
        if env.is_instance_of::<pyo3::types::PyBool>()
            || !env.is_instance_of::<pyo3::types::PyInt>()
        {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "env must be an int, got {}",
                super::shown(env)
            )));
        }
        let i = env.extract::<usize>().map_err(|_| bad())?;
        Ok(PyState {
            inner: self.inner.state(i).map_err(|_| bad())?,
        })
    }
}
