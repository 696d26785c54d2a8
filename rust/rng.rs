//! The portable random number generator shared, bit for bit, with the Python reference
//! (`tapete/reference/rng.py`): SplitMix64, `below(n)` by rejection, and a Fisher–Yates shuffle
//! from the last position down. See docs/engine.md.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rng {
    pub state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n >= 1): reject draws at or above the largest multiple of n.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        let limit = u64::MAX - (u64::MAX % n + 1) % n; // largest multiple of n, minus one
        loop {
            let x = self.next_u64();
            if x <= limit {
                return x % n;
            }
        }
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn below_matches_the_documented_limit() {
        // limit = (2^64 // n) * n; accept x < limit.
        for n in [1u64, 2, 3, 7, 52, 1 << 63, u64::MAX] {
            let limit = ((1u128 << 64) / n as u128) * n as u128;
            let ours = u64::MAX - (u64::MAX % n + 1) % n;
            assert_eq!(ours as u128 + 1, limit, "n = {n}");
        }
    }

    #[test]
    fn first_outputs_of_seed_zero() {
        // The well-known SplitMix64 sequence for seed 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }
}
