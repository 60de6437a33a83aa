//! The world's one PRNG: ChaCha8 seeded from the scenario, portable across native and wasm32.

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use uuid::Uuid;

/// Deterministic randomness for the whole world. ChaCha8 (from `rand_chacha`) gives the same
/// stream for the same seed on every platform, unlike `SmallRng`.
#[derive(Clone, Debug)]
pub struct Prng {
    inner: ChaCha8Rng,
}

impl Prng {
    /// The name of the algorithm, printed with the seed.
    pub const ALGORITHM: &'static str = "ChaCha8 (rand_chacha), seed_from_u64";

    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self {
            inner: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// How many 32-bit words of the stream have been used: with the seed, the generator's
    /// whole state (for comparing two worlds' futures).
    pub fn word_pos(&self) -> u128 {
        self.inner.get_word_pos()
    }

    /// A uniform value in `0..n` (n > 0), by rejection so that it is unbiased.
    pub fn below(&mut self, n: u64) -> u64 {
        self.below_in(Below::new(n))
    }

    /// [`Prng::below`] with its bound prepared once: the same values, one division fewer per
    /// draw (the upstream draws millions from a few bounds).
    pub fn below_in(&mut self, b: Below) -> u64 {
        loop {
            let v = self.inner.next_u64();
            if v < b.zone {
                return v % b.n;
            }
        }
    }

    /// A random (version 4) UUID built from the seeded stream, never from the OS.
    pub fn uuid(&mut self) -> Uuid {
        let mut bytes = [0u8; 16];
        self.inner.fill_bytes(&mut bytes);
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }
}

/// A bound `0..n` for [`Prng::below_in`], with its rejection zone computed once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Below {
    n: u64,
    zone: u64,
}

impl Below {
    /// The bound `0..n` (n > 0).
    pub fn new(n: u64) -> Below {
        assert!(n > 0, "below(0)");
        Below {
            n,
            zone: u64::MAX - (u64::MAX % n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_uuids() {
        let (mut a, mut b) = (Prng::new(7), Prng::new(7));
        for _ in 0..100 {
            assert_eq!(a.below(1000), b.below(1000));
        }
        assert_eq!(a.uuid(), b.uuid());
        assert_ne!(Prng::new(7).uuid(), Prng::new(8).uuid());
    }

    #[test]
    fn a_prepared_bound_draws_the_same_values() {
        let (mut a, mut b) = (Prng::new(3), Prng::new(3));
        for n in [1, 2, 3, 300, 2000, 1 << 40, u64::MAX] {
            let bound = Below::new(n);
            for _ in 0..50 {
                assert_eq!(a.below(n), b.below_in(bound));
            }
        }
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Prng::new(1);
        assert!((0..1000).all(|_| r.below(3) < 3));
    }
}
