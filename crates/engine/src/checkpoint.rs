//! Spark checkpoint folder: an in-memory file tree in Spark's exact on-disk format.
