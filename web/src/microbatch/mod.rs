//! The micro-batch mode: the player's state and intents (`state`), the recorded run it steps
//! through with its cached counts (`run`), compare mode's second run (`compare`), the files the
//! Export menu makes (`export_file`), and the components that draw it all (`components`).

pub mod compare;
pub mod components;
pub mod export_file;
pub mod run;
pub mod state;
