//! The world's one PRNG: ChaCha8 seeded from the scenario, portable across native and wasm32;
//! and draws addressed by position ([`Keyed`]), keyed by one draw of it, for the upstream's
//! millions of record values.

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
    pub const ALGORITHM: &'static str =
        "ChaCha8 (rand_chacha), seed_from_u64; record values SplitMix64 keyed by it";

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
        assert!(n > 0, "below(0)");
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let v = self.inner.next_u64();
            if v < zone {
                return v % n;
            }
        }
    }

    /// Positional draws keyed by the next 64 bits of this stream (see [`Keyed`]).
    pub fn keyed(&mut self) -> Keyed {
        Keyed {
            key: self.inner.next_u64(),
        }
    }

    /// A random (version 4) UUID built from the seeded stream, never from the OS.
    pub fn uuid(&mut self) -> Uuid {
        let mut bytes = [0u8; 16];
        self.inner.fill_bytes(&mut bytes);
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }
}

/// Draws addressed by position instead of taken in turn: the value at index `i` of stream
/// `(tag, stream)` depends only on the key and those three numbers, so the upstream's record
/// values (a channel's arrival times, a record's payload by channel and sequence) can be drawn
/// in any order, or again on demand. Each draw is one SplitMix64 output (Steele, Lea and Flood,
/// "Fast splittable pseudorandom number generators", OOPSLA 2014; the constants of Vigna's
/// public-domain `splitmix64.c`): a few multiplications, where a ChaCha8 draw costs a block
/// function, which wasm32 runs without the SIMD the native build uses. Not for anything that
/// must be unpredictable; uniform to within `n / 2^64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keyed {
    key: u64,
}

impl Keyed {
    /// The stream `(tag, stream)`: `tag` names what is drawn, `stream` whose (a channel).
    pub fn stream(&self, tag: u64, stream: u64) -> Stream {
        Stream {
            base: mix64(self.key ^ mix64(tag.rotate_left(32) ^ stream)),
        }
    }
}

/// One stream of [`Keyed`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream {
    base: u64,
}

impl Stream {
    /// The value in `0..n` (n > 0) at `index`: SplitMix64's output for the state
    /// `base + (index + 1) × γ`, reduced modulo `n`.
    pub fn below(&self, index: u64, n: u64) -> u64 {
        const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
        mix64(
            self.base
                .wrapping_add(index.wrapping_add(1).wrapping_mul(GAMMA)),
        ) % n
    }
}

/// SplitMix64's output function (Stafford's "Mix13" finaliser).
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
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
    fn a_positional_draw_depends_on_its_key_stream_and_index_only() {
        let keyed = Prng::new(3).keyed();
        assert_eq!(keyed, Prng::new(3).keyed());
        let s = keyed.stream(1, 7);
        let forward: Vec<u64> = (0..500).map(|i| s.below(i, 2000)).collect();
        let backward: Vec<u64> = (0..500).rev().map(|i| s.below(i, 2000)).collect();
        assert!(
            forward.iter().eq(backward.iter().rev()),
            "any order, the same values"
        );
        assert!(forward.iter().all(|&v| v < 2000));
        let others = [
            Prng::new(4).keyed().stream(1, 7),
            keyed.stream(2, 7),
            keyed.stream(1, 8),
        ];
        for other in others {
            let theirs: Vec<u64> = (0..500).map(|i| other.below(i, 2000)).collect();
            assert_ne!(
                theirs, forward,
                "another key, tag or stream draws other values"
            );
        }
    }

    #[test]
    fn positional_draws_are_near_uniform() {
        let s = Prng::new(11).keyed().stream(0, 0);
        let mut counts = [0u32; 10];
        for i in 0..100_000 {
            counts[s.below(i, 10) as usize] += 1;
        }
        // 10,000 expected per value; a deviation of 5 % is over 15 standard deviations.
        assert!(
            counts.iter().all(|&c| c.abs_diff(10_000) < 500),
            "{counts:?}"
        );
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Prng::new(1);
        assert!((0..1000).all(|_| r.below(3) < 3));
    }
}
