//! `batchscope inspect`: read a real Spark checkpoint folder and predict what a restart does.
