//! Worker threads for the batch environment's steps.
//!
//! A step of 1,024 envs takes 100 to 300 µs. A parked thread takes about 25 µs to wake on a
//! virtual machine, and a thread pool that parks its workers between jobs, and parks the caller
//! while it waits for them, pays that twice a step (measured: a rayon scope costs 40 µs a step
//! on the 2-core VM of the README, against 0.1 µs for threads that spin). So the workers of a
//! crew spin for a short while after each job before they park, and the caller spins while it
//! waits for the workers, which never takes longer than the slowest block of one step.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long an idle worker spins waiting for the next job before it parks: longer than the
/// Python code between two steps of a plain loop, short enough not to hold a core for long
/// while a learner works between steps.
const SPIN: Duration = Duration::from_micros(300);

/// A job: called once with every block index, `0` on the calling thread.
pub type Job<'a> = dyn Fn(usize) + Sync + 'a;

/// What the caller and the workers share.
struct Board {
    /// Bumped for every job: a worker runs each generation once.
    generation: AtomicU64,
    /// The current job, set while `pending > 0`. Its true lifetime is the `run` call that set
    /// it, which does not return before every worker is done with it.
    job: Mutex<Option<&'static Job<'static>>>,
    /// Workers still running the current job.
    pending: AtomicUsize,
    /// The panic of a worker's part of the current job, passed on to the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    stop: AtomicBool,
    /// How long an idle worker spins before it parks.
    spin: Duration,
    /// Per worker: parked (or about to park) until the next job.
    parked: Vec<AtomicBool>,
}

/// `threads - 1` worker threads; the thread that calls [`Crew::run`] is the first of the crew.
pub struct Crew {
    board: Arc<Board>,
    workers: Vec<JoinHandle<()>>,
    /// Held by the `run` in progress: the board has room for one job at a time.
    running: Mutex<()>,
}

impl Crew {
    pub fn new(threads: usize) -> std::io::Result<Crew> {
        Crew::spinning(threads, SPIN)
    }

    fn spinning(threads: usize, spin: Duration) -> std::io::Result<Crew> {
        let board = Arc::new(Board {
            generation: AtomicU64::new(0),
            job: Mutex::new(None),
            pending: AtomicUsize::new(0),
            panic: Mutex::new(None),
            stop: AtomicBool::new(false),
            spin,
            parked: (1..threads).map(|_| AtomicBool::new(false)).collect(),
        });
        let mut crew = Crew {
            board: board.clone(),
            workers: Vec::new(),
            running: Mutex::new(()),
        };
        for index in 1..threads {
            let board = board.clone();
            let worker = std::thread::Builder::new()
                .name(format!("tapete-batch-{index}"))
                .spawn(move || serve(&board, index))?;
            crew.workers.push(worker);
        }
        Ok(crew)
    }

    /// Threads of the crew, the caller included.
    pub fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// Calls `job(b)` for every block `b` in `0..threads()`, block 0 on this thread, the others
    /// on the workers, and returns once every call has returned.
    pub fn run(&self, job: &Job<'_>) {
        let board = &*self.board;
        // Another `run` in progress (from another thread, or from inside a job): the blocks
        // run here, one after the other, which gives the same results.
        let running = match self.running.try_lock() {
            Ok(guard) => guard,
            // A panic in an earlier job left nothing half done on the board.
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return (0..self.threads()).for_each(job),
        };
        if self.workers.is_empty() {
            return job(0);
        }
        // SAFETY: the board holds the job only during this call, the only one in progress
        // (`running`): `Wait` (also when `job(0)` unwinds) waits until every worker has
        // returned from it, then takes it off the board.
        let job: &'static Job<'static> = unsafe { std::mem::transmute(job) };
        *lock(&board.job) = Some(job);
        // A worker's panic left by a run whose own block panicked first.
        drop(lock(&board.panic).take());
        board.pending.store(self.workers.len(), Ordering::SeqCst);
        board.generation.fetch_add(1, Ordering::SeqCst);
        for (worker, parked) in self.workers.iter().zip(&board.parked) {
            if parked.load(Ordering::SeqCst) {
                worker.thread().unpark();
            }
        }
        let wait = Wait(board);
        job(0);
        drop(wait);
        let panic = lock(&board.panic).take();
        drop(running);
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
}

/// A mutex's value, also after a panic elsewhere (nothing guarded here is left half written).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits, when dropped, until no worker runs the current job, then takes it off the board.
struct Wait<'a>(&'a Board);

impl Drop for Wait<'_> {
    fn drop(&mut self) {
        let mut spins = 0u32;
        while self.0.pending.load(Ordering::Acquire) != 0 {
            spins = spins.wrapping_add(1);
            if spins % 1024 == 0 {
                // A worker that is not running (more threads than cores): give it the core.
                std::thread::yield_now();
            }
            std::hint::spin_loop();
        }
        *lock(&self.0.job) = None;
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        self.board.stop.store(true, Ordering::SeqCst);
        for worker in self.workers.drain(..) {
            worker.thread().unpark();
            let _ = worker.join();
        }
    }
}

/// A worker's life: wait for a job (spinning, then parked), run its block, repeat. The clock
/// only times the spinning: what a job computes never depends on it.
#[allow(clippy::disallowed_methods)]
fn serve(board: &Board, index: usize) {
    let parked = &board.parked[index - 1];
    let mut seen = 0u64;
    loop {
        let mut idle_since = Instant::now();
        let mut spins = 0u32;
        loop {
            if board.stop.load(Ordering::Acquire) {
                return;
            }
            let generation = board.generation.load(Ordering::Acquire);
            if generation != seen {
                seen = generation;
                break;
            }
            spins = spins.wrapping_add(1);
            if spins % 128 == 0 && idle_since.elapsed() >= board.spin {
                // Announce the park before checking once more, so that `run` either sees the
                // flag (and unparks) or this check sees its job.
                parked.store(true, Ordering::SeqCst);
                if board.generation.load(Ordering::SeqCst) == seen
                    && !board.stop.load(Ordering::SeqCst)
                {
                    std::thread::park();
                }
                parked.store(false, Ordering::SeqCst);
                idle_since = Instant::now();
            } else {
                std::hint::spin_loop();
            }
        }
        let job = lock(&board.job).expect("a job is on the board while its generation is new");
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| job(index))) {
            // Kept for the caller (dropping the payload here could panic again).
            lock(&board.panic).get_or_insert(payload);
        }
        board.pending.fetch_sub(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_block_runs_once_per_job() {
        // Workers that spin, and workers that park after every job (and must be woken).
        for (threads, spin) in (1..=4).flat_map(|t| [(t, SPIN), (t, Duration::ZERO)]) {
            let crew = Crew::spinning(threads, spin).unwrap();
            for round in 0..200u64 {
                let counts: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
                crew.run(&|b| {
                    counts[b].fetch_add(round + 1, Ordering::Relaxed);
                });
                for c in &counts {
                    assert_eq!(c.load(Ordering::Relaxed), round + 1);
                }
            }
        }
    }

    #[test]
    fn a_worker_panic_reaches_the_caller() {
        let crew = Crew::new(2).unwrap();
        let out = catch_unwind(AssertUnwindSafe(|| {
            crew.run(&|b| assert_eq!(b, 0, "block {b}"))
        }));
        // The worker's own message reaches the caller.
        let message = out
            .expect_err("the worker's panic")
            .downcast::<String>()
            .unwrap();
        assert!(message.contains("block 1"), "{message}");
        // The crew still works afterwards.
        let hits = AtomicUsize::new(0);
        crew.run(&|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn runs_from_several_threads_at_once_each_run_every_block() {
        let crew = Crew::spinning(2, Duration::ZERO).unwrap();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..2000 {
                        let hits: Vec<AtomicUsize> = (0..2).map(|_| AtomicUsize::new(0)).collect();
                        crew.run(&|b| {
                            hits[b].fetch_add(1, Ordering::Relaxed);
                        });
                        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
                    }
                });
            }
        });
    }
}
