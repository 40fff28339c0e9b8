//! What the engine's tests share: a brute-force reference to check answers
//! against, and seeded random boards.

pub mod random;
pub mod reference;
