//! `batchscope topology`: timestamp barriers across an ETL topology (FLIP-276).
