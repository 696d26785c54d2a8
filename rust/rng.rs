//! The portable random number generator shared, bit for bit, with the Python reference
//! (`tapete/reference/rng.py`): SplitMix64, `below(n)` by Lemire's multiply-and-reject, and a
//! Fisher–Yates shuffle from the last position down. See docs/engine.md.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rng {
    pub state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n >= 1) by rejection: the high half of `x * n` for a 64-bit draw
    /// `x`, drawing again while the low half is below `2^64 mod n` (Lemire's method).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        loop {
            let m = self.next_u64() as u128 * n as u128;
            let low = m as u64;
            // Most draws are accepted before computing the threshold, which needs a division.
            if low >= n || low >= n.wrapping_neg() % n {
                return (m >> 64) as u64;
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
    fn below_is_in_range_and_rejects_the_biased_draws() {
        let mut r = Rng::new(3);
        for n in [1u64, 2, 3, 7, 52, 1 << 63, (1 << 63) + 1, u64::MAX] {
            for _ in 0..1000 {
                assert!(r.below(n) < n);
            }
        }
        // With n = 2^63 + 1 almost half the draws are rejected: the stream must still advance
        // exactly as the shared vectors say (checked below), and stay uniform: both halves occur.
        let (mut low, mut high) = (0, 0);
        for _ in 0..1000 {
            if r.below((1 << 63) + 1) < 1 << 62 {
                low += 1
            } else {
                high += 1
            }
        }
        assert!(low > 100 && high > 100);
    }

    #[test]
    fn first_outputs_of_seed_zero() {
        // The well-known SplitMix64 sequence for seed 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }
}

#[cfg(test)]
mod shared_vectors {
    //! The vectors of tests/data/rng_vectors.json, also checked by the Python tests.
    use super::Rng;
    use serde_json::Value;

    fn num(v: &Value) -> u64 {
        v.as_str()
            .expect("numbers are strings")
            .parse()
            .expect("u64")
    }

    #[test]
    fn rust_matches_the_shared_vectors() {
        let data: Value =
            serde_json::from_str(include_str!("../tests/data/rng_vectors.json")).unwrap();
        for case in data["next_u64"].as_array().unwrap() {
            let mut r = Rng::new(num(&case["seed"]));
            for out in case["outputs"].as_array().unwrap() {
                assert_eq!(r.next_u64(), num(out));
            }
        }
        for case in data["below"].as_array().unwrap() {
            let mut r = Rng::new(num(&case["seed"]));
            for out in case["outputs"].as_array().unwrap() {
                assert_eq!(r.below(num(&case["n"])), num(out));
            }
        }
        for case in data["shuffle52"].as_array().unwrap() {
            let mut r = Rng::new(num(&case["seed"]));
            let mut deck: Vec<u64> = (0..52).collect();
            r.shuffle(&mut deck);
            let want: Vec<u64> = case["deck"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(deck, want);
        }
    }
}
