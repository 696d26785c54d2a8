//! The batch environment: many games of one config stepped at once into flat, row-major buffers
//! (one row per env), written once for every game. docs/vector.md is its contract.

use crate::crew::Crew;
use crate::dynamic::{DynGame, DynState, GameOf, Tracked};
use crate::game::{Action, Game};
use crate::rng::Rng;
use crate::{config_err, illegal_err, value_err, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Most envs one batch may hold: each keeps a whole game state.
pub const MAX_ENVS: usize = 1 << 20;
/// `current_player` of a finished game (`tapete.TERMINAL`).
pub const TERMINAL: i32 = -4;

/// Whose observation tensors a batch carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Observe {
    Current,
    All,
    Nothing,
}

/// What an env does once its game is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Autoreset {
    SameStep,
    NextStep,
    Disabled,
}

impl Observe {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "current" => Ok(Observe::Current),
            "all" => Ok(Observe::All),
            "none" => Ok(Observe::Nothing),
            _ => Err(config_err!(
                "observe must be \"current\", \"all\" or \"none\", got {}",
                crate::error::quoted(text)
            )),
        }
    }
}

impl Autoreset {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "same_step" => Ok(Autoreset::SameStep),
            "next_step" => Ok(Autoreset::NextStep),
            "disabled" => Ok(Autoreset::Disabled),
            _ => Err(config_err!(
                "autoreset must be \"same_step\", \"next_step\" or \"disabled\", got {}",
                crate::error::quoted(text)
            )),
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub num_envs: usize,
    pub seed: u64,
    pub threads: usize,
    pub observe: Observe,
    pub autoreset: Autoreset,
}

/// Where `reset` and `step` write every value (the buffers may hold anything before: each
/// thread clears its own rows, which is faster than zeroing them all first): `observation` holds
/// [`DynVectorEnv::observation_row`] floats per env, `legal_mask` one flag per distinct action,
/// `rewards` one value per seat, the others one value per env.
pub struct Out<'a> {
    pub observation: &'a mut [f32],
    pub legal_mask: &'a mut [bool],
    pub current_player: &'a mut [i32],
    pub rewards: &'a mut [f32],
    pub terminated: &'a mut [bool],
    pub episode: &'a mut [i64],
}

impl<'a> Out<'a> {
    /// Cuts off the rows of the first `envs` envs.
    fn split_off_front(
        &mut self,
        envs: usize,
        obs_row: usize,
        actions: usize,
        seats: usize,
    ) -> Self {
        fn front<'a, T>(s: &mut &'a mut [T], n: usize) -> &'a mut [T] {
            let (head, tail) = std::mem::take(s).split_at_mut(n);
            *s = tail;
            head
        }
        Out {
            observation: front(&mut self.observation, envs * obs_row),
            legal_mask: front(&mut self.legal_mask, envs * actions),
            current_player: front(&mut self.current_player, envs),
            rewards: front(&mut self.rewards, envs * seats),
            terminated: front(&mut self.terminated, envs),
            episode: front(&mut self.episode, envs),
        }
    }
}

/// A batch environment behind a trait object; actions are indices.
pub trait DynVectorEnv: Send + Sync {
    fn num_envs(&self) -> usize;
    fn game(&self) -> Box<dyn DynGame>;
    /// Floats of observation per env: 0, one tensor, or one per seat.
    fn observation_row(&self) -> usize;
    /// Starts game 0 of every env (with a new base seed if given) and writes the first batch.
    fn reset(&mut self, seed: Option<u64>, out: Out<'_>);
    /// Applies one action per env; an illegal one anywhere is an error and steps no env.
    fn step(&mut self, actions: &[i64], out: Out<'_>) -> Result<()>;
    /// A uniformly random legal action per env, -1 where an env's game is over.
    fn random_actions(&self, seed: u64, out: &mut [i64]);
    fn state(&self, env: usize) -> Result<Box<dyn DynState>>;
}

/// What every env shares, read-only while stepping.
struct Shared<G: Game> {
    config: Arc<G::Config>,
    seed: u64,
    num_envs: u64,
    observe: Observe,
    autoreset: Autoreset,
    seats: usize,
    obs_len: usize,
}

struct Slot<G: Game> {
    game: Tracked<G>,
    /// Index k of the game this env is in.
    episode: u64,
    /// The legal actions now (empty when the game is over): the mask, the check of the next
    /// action and `random_actions` all read them.
    legal: Vec<G::Action>,
}

impl<G: Game> Shared<G> {
    /// Game `k` of env `i` is the state of seed `seed + k·num_envs + i` (mod 2^64).
    fn game_seed(&self, env: usize, episode: u64) -> u64 {
        self.seed
            .wrapping_add(episode.wrapping_mul(self.num_envs))
            .wrapping_add(env as u64)
    }

    fn start(&self, env: usize, episode: u64) -> Slot<G> {
        let seed = self.game_seed(env, episode);
        let mut slot = Slot::<G> {
            game: Tracked::new(self.config.clone(), seed, Vec::new()),
            episode,
            legal: Vec::with_capacity(16),
        };
        slot.game.state().legal_actions(&mut slot.legal);
        slot
    }

    /// `slot` becomes `start(env, episode)`, keeping its buffers.
    fn restart(&self, slot: &mut Slot<G>, env: usize, episode: u64) {
        slot.game.restart(self.game_seed(env, episode));
        slot.episode = episode;
        slot.legal.clear();
        slot.game.state().legal_actions(&mut slot.legal);
    }

    fn obs_row(&self) -> usize {
        match self.observe {
            Observe::Current => self.obs_len,
            Observe::All => self.obs_len * self.seats,
            Observe::Nothing => 0,
        }
    }

    /// Clears env `j`'s rows of a block: no reward, not terminated, no mask, a zero tensor.
    fn clear(&self, j: usize, out: &mut Out<'_>) {
        let row = self.obs_row();
        out.observation[j * row..(j + 1) * row].fill(0.0);
        out.legal_mask[j * G::Action::COUNT..(j + 1) * G::Action::COUNT].fill(false);
        out.rewards[j * self.seats..(j + 1) * self.seats].fill(0.0);
        out.terminated[j] = false;
    }

    /// Writes env `j` of a block over its cleared rows (its rewards are already written).
    fn write(&self, slot: &Slot<G>, j: usize, out: &mut Out<'_>) {
        out.episode[j] = slot.episode as i64;
        let state = slot.game.state();
        let Some(player) = state.current_player() else {
            out.current_player[j] = TERMINAL;
            return;
        };
        out.current_player[j] = player as i32;
        let mask = &mut out.legal_mask[j * G::Action::COUNT..(j + 1) * G::Action::COUNT];
        for a in &slot.legal {
            mask[a.index()] = true;
        }
        let row = self.obs_row();
        let obs = &mut out.observation[j * row..(j + 1) * row];
        match self.observe {
            Observe::Current => state.observe(player, obs),
            Observe::All => {
                for (seat, o) in obs.chunks_mut(self.obs_len).enumerate() {
                    state.observe(seat, o);
                }
            }
            Observe::Nothing => {}
        }
    }

    /// Steps the envs `first..first + slots.len()` with their (checked) actions.
    fn step_block(&self, slots: &mut [Slot<G>], first: usize, actions: &[i64], mut out: Out<'_>) {
        let mut rewards = vec![0.0; self.seats];
        for (j, slot) in slots.iter_mut().enumerate() {
            let env = first + j;
            self.clear(j, &mut out);
            if slot.legal.is_empty() {
                // Over in an earlier step: next_step starts the next game, disabled stays put.
                if self.autoreset == Autoreset::NextStep {
                    self.restart(slot, env, slot.episode + 1);
                }
            } else {
                let action = G::Action::from_index(actions[env] as usize)
                    .expect("actions are checked before stepping");
                slot.game.apply_legal(action);
                slot.game.rewards_into(&mut rewards);
                for (o, r) in out.rewards[j * self.seats..(j + 1) * self.seats]
                    .iter_mut()
                    .zip(&rewards)
                {
                    *o = *r as f32;
                }
                slot.legal.clear();
                slot.game.state().legal_actions(&mut slot.legal);
                if slot.legal.is_empty() {
                    out.terminated[j] = true;
                    if self.autoreset == Autoreset::SameStep {
                        self.restart(slot, env, slot.episode + 1);
                    }
                }
            }
            self.write(slot, j, &mut out);
        }
    }
}

/// A block of envs to step: its first env, its envs and its rows.
type Block<'a, G> = (usize, &'a mut [Slot<G>], Out<'a>);

pub struct VectorEnv<G: Game> {
    shared: Shared<G>,
    slots: Vec<Slot<G>>,
    /// The threads that step the envs, one contiguous block of envs each.
    crew: Crew,
}

impl<G: Game> VectorEnv<G> {
    pub fn new(config: Arc<G::Config>, settings: Settings) -> Result<Self> {
        let n = settings.num_envs;
        if !(1..=MAX_ENVS).contains(&n) {
            return Err(config_err!("num_envs must be 1..={MAX_ENVS}, got {n}"));
        }
        let threads = settings.threads.clamp(1, n);
        let crew =
            Crew::new(threads).map_err(|e| config_err!("cannot start {threads} threads: {e}"))?;
        let seats = G::num_players(&config);
        let obs_len = G::observation_shape(&config).iter().product();
        // Running out of memory is an error here rather than an abort: room for what making the
        // envs takes at its peak (each thread's slots, then all of them in one list), every
        // env's deal start, deck, legal actions and returns, the allocator's headers, and half
        // as much again for the games to grow (histories, past deals), is reserved and let go
        // before any env is made.
        let per_env = 2 * std::mem::size_of::<Slot<G>>()
            + std::mem::size_of::<G>()
            + G::PACK.size()
            + 16 * std::mem::size_of::<G::Action>()
            + 8 * seats
            + 6 * 32;
        let needed = n.saturating_mul(per_env).saturating_mul(3) / 2;
        Vec::<u8>::new().try_reserve_exact(needed).map_err(|_| {
            crate::Error::Memory(format!(
                "{n} envs need about {} MB: not available",
                needed / 1_000_000
            ))
        })?;
        let shared = Shared {
            config,
            seed: settings.seed,
            num_envs: n as u64,
            observe: settings.observe,
            autoreset: settings.autoreset,
            seats,
            obs_len,
        };
        let mut env = VectorEnv {
            shared,
            slots: Vec::new(),
            crew,
        };
        env.start_all();
        Ok(env)
    }

    /// The envs of block `b`: `threads` contiguous blocks of equal size (the last ones may be
    /// shorter or empty).
    fn block(&self, b: usize) -> std::ops::Range<usize> {
        let n = self.shared.num_envs as usize;
        let size = n.div_ceil(self.crew.threads());
        (b * size).min(n)..((b + 1) * size).min(n)
    }

    /// Starts game 0 of every env, one block per thread.
    fn start_all(&mut self) {
        let parts: Vec<Mutex<Vec<Slot<G>>>> = (0..self.crew.threads())
            .map(|_| Mutex::new(Vec::new()))
            .collect();
        self.crew.run(&|b| {
            let started = self.block(b).map(|i| self.shared.start(i, 0)).collect();
            *parts[b].lock().expect("one thread per block") = started;
        });
        self.slots = parts
            .into_iter()
            .flat_map(|p| p.into_inner().expect("one thread per block"))
            .collect();
    }

    /// `f(shared, first env, envs, their rows)` for each block of envs, one block per thread.
    fn run_blocks(
        &mut self,
        mut out: Out<'_>,
        f: impl Fn(&Shared<G>, usize, &mut [Slot<G>], Out<'_>) + Sync,
    ) {
        let shared = &self.shared;
        let (seats, row) = (shared.seats, shared.obs_row());
        // Each block's envs and rows, taken by the thread that steps it.
        let blocks: Vec<std::ops::Range<usize>> =
            (0..self.crew.threads()).map(|b| self.block(b)).collect();
        let mut rest = &mut self.slots[..];
        let parts: Vec<Mutex<Option<Block<'_, G>>>> = blocks
            .into_iter()
            .map(|block| {
                let (slots, tail) = std::mem::take(&mut rest).split_at_mut(block.len());
                rest = tail;
                let part = out.split_off_front(slots.len(), row, G::Action::COUNT, seats);
                Mutex::new(Some((block.start, slots, part)))
            })
            .collect();
        self.crew.run(&|b| {
            let part = parts
                .get(b)
                .and_then(|p| p.lock().expect("one thread per block").take());
            if let Some((first, slots, out)) = part {
                f(shared, first, slots, out);
            }
        });
    }

    fn check(&self, actions: &[i64]) -> Result<()> {
        if actions.len() != self.slots.len() {
            return Err(value_err!(
                "actions must have shape ({},), got {} actions",
                self.slots.len(),
                actions.len()
            ));
        }
        // The first illegal action, looked for in every block at once.
        let first = AtomicUsize::new(usize::MAX);
        self.crew.run(&|b| {
            let block = self.block(b);
            let (slots, acts) = (&self.slots[block.clone()], &actions[block.clone()]);
            if let Some(j) = slots.iter().zip(acts).position(|(slot, &a)| {
                // A finished env ignores its action.
                !slot.legal.is_empty()
                    && !usize::try_from(a)
                        .ok()
                        .and_then(G::Action::from_index)
                        .is_some_and(|action| slot.legal.contains(&action))
            }) {
                first.fetch_min(block.start + j, Ordering::Relaxed);
            }
        });
        let env = first.into_inner();
        if let Some(slot) = self.slots.get(env) {
            let a = actions[env];
            let action = usize::try_from(a).ok().and_then(G::Action::from_index);
            let named = action.map_or_else(|| "out of range".to_string(), |x| x.to_string());
            let why = action
                .and_then(|x| slot.game.state().illegal_reason(x))
                .map_or_else(String::new, |r| format!(": {r}"));
            let may: Vec<String> = slot
                .legal
                .iter()
                .map(|x| format!("{} ({x})", x.index()))
                .collect();
            return Err(illegal_err!(
                "env {env}: action {a} ({named}) is not legal{why}; seat {} may play {}; no env was stepped",
                slot.game.state().current_player().unwrap_or(0),
                may.join(", ")
            ));
        }
        Ok(())
    }
}

/// The draws of `random_actions(seed)` for env `i`: SplitMix64 from `(seed + i) · C` (mod 2^64),
/// an odd constant `C` spreading neighbouring envs over unrelated streams.
pub fn action_rng(seed: u64, env: usize) -> Rng {
    Rng::new(
        seed.wrapping_add(env as u64)
            .wrapping_mul(0x2545_F491_4F6C_DD1D),
    )
}

impl<G: Game> DynVectorEnv for VectorEnv<G> {
    fn num_envs(&self) -> usize {
        self.slots.len()
    }

    fn game(&self) -> Box<dyn DynGame> {
        Box::new(GameOf::<G>::from_config(self.shared.config.clone()))
    }

    fn observation_row(&self) -> usize {
        self.shared.obs_row()
    }

    fn reset(&mut self, seed: Option<u64>, out: Out<'_>) {
        if let Some(seed) = seed {
            self.shared.seed = seed;
        }
        // Every env starts game 0 in place, keeping its buffers.
        self.run_blocks(out, |shared, first, slots, mut out| {
            for (j, slot) in slots.iter_mut().enumerate() {
                shared.restart(slot, first + j, 0);
                shared.clear(j, &mut out);
                shared.write(slot, j, &mut out);
            }
        });
    }

    fn step(&mut self, actions: &[i64], out: Out<'_>) -> Result<()> {
        self.check(actions)?;
        self.run_blocks(out, |shared, first, slots, out| {
            shared.step_block(slots, first, actions, out)
        });
        Ok(())
    }

    fn random_actions(&self, seed: u64, out: &mut [i64]) {
        // Each block's part of `out`, taken by the thread that fills it.
        let mut rest = &mut out[..self.slots.len()];
        let parts: Vec<Mutex<Option<&mut [i64]>>> = (0..self.crew.threads())
            .map(|b| {
                let (part, tail) = std::mem::take(&mut rest).split_at_mut(self.block(b).len());
                rest = tail;
                Mutex::new(Some(part))
            })
            .collect();
        self.crew.run(&|b| {
            let Some(out) = parts[b].lock().expect("one thread per block").take() else {
                return;
            };
            let block = self.block(b);
            for ((env, slot), o) in block.clone().zip(&self.slots[block]).zip(out) {
                *o = if slot.legal.is_empty() {
                    -1
                } else {
                    let pick = action_rng(seed, env).below(slot.legal.len() as u64);
                    slot.legal[pick as usize].index() as i64
                };
            }
        });
    }

    fn state(&self, env: usize) -> Result<Box<dyn DynState>> {
        let n = self.slots.len();
        self.slots
            .get(env)
            .map(|s| Box::new(s.game.clone()) as Box<dyn DynState>)
            .ok_or_else(|| {
                value_err!(
                    "env {env} is out of range: this batch has envs 0..{}",
                    n - 1
                )
            })
    }
}
