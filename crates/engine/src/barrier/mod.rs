//! FLIP-276 timestamp barriers across an ETL topology of jobs and tables.
