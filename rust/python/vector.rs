//! `tapete._core.VectorEnv`: the batch environment of `crate::batch` over fresh numpy buffers,
//! stepped without the GIL. `tapete/vector.py` adds the typed `Batch` and the argument checks
//! numpy does best (dtype, shape).

use super::{
    config_error, locked, positive_arg, seed_arg, text_arg, threads_arg, OrPy, PyGame, PyState,
};
use crate::batch::{Autoreset, DynVectorEnv, Observe, Out, Settings, MAX_ENVS};
use numpy::ndarray::{Dimension, Ix1, Ix2, IxDyn};
use numpy::npyffi::{self, npy_intp, PY_ARRAY_API};
use numpy::{
    Element, PyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyReadonlyArray1,
};
use pyo3::prelude::*;
use std::os::raw::c_int;
use std::sync::Mutex;

/// Safe to share between threads: every call takes the env's lock without the GIL, so that two
/// threads stepping one env take turns (each step whole) rather than fail.
#[pyclass(module = "tapete._core", name = "VectorEnv", frozen)]
pub struct PyVectorEnv {
    inner: Mutex<Box<dyn DynVectorEnv>>,
    num_envs: usize,
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

/// A fresh array of shape `dims` whose elements are not initialised, or numpy's MemoryError
/// (rust-numpy's `PyArray::new` panics when numpy cannot allocate).
///
/// SAFETY: `D` must be `IxDyn` or have `dims.len()` axes, and every element must be written
/// before the array reaches Python.
unsafe fn uninit<'py, T: Element, D: Dimension>(
    py: Python<'py>,
    dims: &[usize],
) -> PyResult<Bound<'py, PyArray<T, D>>> {
    let mut dims: Vec<npy_intp> = dims.iter().map(|&d| d as npy_intp).collect();
    let array = unsafe {
        PY_ARRAY_API.PyArray_NewFromDescr(
            py,
            npyffi::get_type_object(py, npyffi::NpyTypes::PyArray_Type),
            T::get_dtype(py).into_dtype_ptr(),
            dims.len() as c_int,
            dims.as_mut_ptr(),
            std::ptr::null_mut(), // C-contiguous strides
            std::ptr::null_mut(), // numpy allocates the data
            0,
            std::ptr::null_mut(),
        )
    };
    Ok(unsafe { Bound::from_owned_ptr_or_err(py, array)?.cast_into_unchecked() })
}

impl PyVectorEnv {
    /// `f` on the env, without the GIL (a thread holding the GIL must not wait for the lock:
    /// the thread that holds it may need the GIL to finish).
    fn with_env<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut dyn DynVectorEnv) -> R + Send,
    ) -> R {
        py.detach(|| f(locked(&self.inner).as_mut()))
    }

    /// Fresh arrays, every value written by `fill` without the GIL.
    fn batch<'py>(
        &self,
        py: Python<'py>,
        fill: impl FnOnce(&mut dyn DynVectorEnv, Out<'_>) -> crate::Result<()> + Send,
    ) -> PyResult<BatchArrays<'py>> {
        let n = self.num_envs;
        let mut dims = vec![n];
        match self.observe {
            Observe::Current => dims.extend(&self.obs_shape),
            Observe::All => {
                dims.push(self.seats);
                dims.extend(&self.obs_shape)
            }
            Observe::Nothing => {}
        }
        // SAFETY (the `uninit` calls): every element of these arrays is written by the env
        // (`crate::batch::Out`) before they are returned.
        let observation = match self.observe {
            Observe::Nothing => None,
            _ => Some(unsafe { uninit::<f32, IxDyn>(py, &dims)? }),
        };
        let legal_mask = unsafe { uninit::<bool, Ix2>(py, &[n, self.actions])? };
        let current_player = unsafe { uninit::<i32, Ix1>(py, &[n])? };
        let rewards = unsafe { uninit::<f32, Ix2>(py, &[n, self.seats])? };
        let terminated = unsafe { uninit::<bool, Ix1>(py, &[n])? };
        let episode = unsafe { uninit::<i64, Ix1>(py, &[n])? };
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
        self.with_env(py, |env| fill(env, out)).py_err()?;
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
            num_envs: inner.num_envs(),
            inner: Mutex::new(inner),
            observe,
            obs_shape: game.inner.observation_shape(),
            seats: game.inner.num_players(),
            actions: game.inner.num_distinct_actions(),
        })
    }

    #[getter]
    fn num_envs(&self) -> usize {
        self.num_envs
    }

    #[getter]
    fn game(&self, py: Python<'_>) -> PyGame {
        PyGame {
            inner: self.with_env(py, |env| env.game()),
        }
    }

    #[pyo3(signature = (seed=None))]
    fn reset<'py>(
        &self,
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
        &self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<BatchArrays<'py>> {
        // A copy: another Python thread may write to the array while the GIL is released,
        // between the check of the actions and the step that applies them.
        let actions = actions.as_slice()?.to_vec();
        self.batch(py, move |env, out| env.step(&actions, out))
    }

    fn random_actions<'py>(
        &self,
        py: Python<'py>,
        seed: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let seed = seed_arg(seed)?;
        let mut out = vec![0; self.num_envs];
        self.with_env(py, |env| env.random_actions(seed, &mut out));
        Ok(PyArray1::from_vec(py, out))
    }

    fn state(&self, env: &Bound<'_, PyAny>) -> PyResult<PyState> {
        let n = self.num_envs;
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
        Ok(self
            .with_env(env.py(), |e| e.state(i))
            .map_err(|_| bad())?
            .into())
    }
}
