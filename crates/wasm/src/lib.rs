//! wasm-bindgen API of the batchscope engine for JavaScript users.
