//! The engine's tests, one module a topic: hand-made edge cases with their
//! exact answers, the game functions, and the searches checked against a
//! brute-force reference on random boards small and large.

mod cases;
mod game;
mod large_boards;
mod layout;
mod properties;
mod support;
