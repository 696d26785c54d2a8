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

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n >= 1): reject draws at or above the largest multiple of n.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        loop {
            let x = self.next_u64();
            // Only the top `2^64 mod n` values are rejected; for n < 2^32 they all have their
            // high half set, so most draws skip computing the limit.
            if (n <= u32::MAX as u64 && x >> 32 != u32::MAX as u64)
                || x <= u64::MAX - (u64::MAX % n + 1) % n
            {
                return remainder(x, n);
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

/// `ceil(2^128 / d)` for the small moduli of shuffles (Lemire, Kaser and Kurz, "Faster
/// remainder by direct computation"): `x % d` with multiplications instead of a division.
const FASTMOD: [u128; 129] = {
    let mut m = [0u128; 129];
    let mut d = 2;
    while d < 129 {
        m[d] = u128::MAX / d as u128 + 1;
        d += 1;
    }
    m
};

#[inline]
fn remainder(x: u64, d: u64) -> u64 {
    if d < 2 || d >= FASTMOD.len() as u64 {
        return x % d.max(1);
    }
    let low = FASTMOD[d as usize].wrapping_mul(x as u128);
    // The high 64 bits of the 192-bit product low * d.
    let hi = (low >> 64) * d as u128 + (((low as u64) as u128 * d as u128) >> 64);
    (hi >> 64) as u64
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
    fn fast_remainder_is_exact() {
        let mut r = Rng::new(7);
        for d in 1..140u64 {
            for x in [0, 1, d - 1, d, u64::MAX, u64::MAX - 1, u64::MAX / 2] {
                assert_eq!(remainder(x, d), x % d, "{x} % {d}");
            }
            for _ in 0..2000 {
                let x = r.next_u64();
                assert_eq!(remainder(x, d), x % d, "{x} % {d}");
            }
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
