//! The fingerprint of a trace: one hash for the events of both worlds (determinism tests).

/// FNV-1a 64 over the canonical JSON of the events: a platform-independent fingerprint of a
/// trace, the same function for both worlds.
pub fn hash<E: serde::Serialize>(events: &[E]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for e in events {
        let json = serde_json::to_vec(e).expect("events serialize");
        for b in json {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}
