//! How the performance table writes a number: seconds, ratios, megabytes, bytes a record,
//! and integers with thousands separators.

/// Bytes in a megabyte as the table counts it (a mebibyte, written "MB").
const MB: f64 = 1_048_576.0;

/// At and above this many bytes, megabytes are written without a decimal.
const MB_WHOLE_FROM: u64 = 10 * 1_048_576;

/// `1234567` as `1,234,567`.
pub fn commas(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Milliseconds written as seconds: `0.04 s`.
pub fn seconds_of_ms(ms: f64) -> String {
    format!("{:.2} s", ms / 1000.0)
}

/// Seconds: `0.70 s`.
pub fn seconds(s: f64) -> String {
    format!("{s:.2} s")
}

/// `a ÷ b` to one decimal: `1.4×`.
pub fn ratio(a: f64, b: f64) -> String {
    format!("{:.1}×", a / b)
}

/// Bytes as megabytes: one decimal under 10 MB (`1.4 MB`), none from there (`43 MB`);
/// `unknown` when the measure could not be read.
pub fn mb(bytes: Option<u64>) -> String {
    match bytes {
        Some(b) if b < MB_WHOLE_FROM => format!("{:.1} MB", b as f64 / MB),
        Some(b) => format!("{:.0} MB", b as f64 / MB),
        None => "unknown".to_string(),
    }
}

/// A measured text that may be a byte count: as megabytes if it is one, else as it is (a
/// benchmark's own "not measured" note).
pub fn mb_text(text: &str) -> String {
    match text.parse::<u64>() {
        Ok(b) if text.bytes().all(|c| c.is_ascii_digit()) => mb(Some(b)),
        _ => text.to_string(),
    }
}

/// The memory a record adds: the growth from the smaller run to the larger over the records
/// added, in whole bytes (`24 B`), or `unknown` when a size is missing or the runs are not
/// larger and smaller.
pub fn per_record(large: Option<u64>, small: Option<u64>, records: u64, fewer: u64) -> String {
    match (large, small) {
        (Some(a), Some(b)) if records > fewer => {
            let growth = a as f64 - b as f64;
            format!("{:.0} B", growth / (records - fewer) as f64)
        }
        _ => "unknown".to_string(),
    }
}

/// `/usr/bin/time`'s elapsed time (`h:mm:ss` or `m:ss.ss`) in seconds.
pub fn clock_seconds(text: &str) -> Option<f64> {
    text.trim().split(':').try_fold(0.0, |total, part| {
        Some(total * 60.0 + part.parse::<f64>().ok()?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_table_writes_them() {
        assert_eq!(commas(0), "0");
        assert_eq!(commas(999), "999");
        assert_eq!(commas(21_362), "21,362");
        assert_eq!(commas(1_487_680), "1,487,680");
        assert_eq!(seconds_of_ms(38.6), "0.04 s");
        assert_eq!(ratio(121.0, 40.0), "3.0×");
        assert_eq!(mb(Some(1_468_006)), "1.4 MB");
        assert_eq!(mb(Some(45_088_768)), "43 MB");
        assert_eq!(mb(None), "unknown");
        assert_eq!(mb_text("1468006"), "1.4 MB");
        assert_eq!(mb_text("none"), "none");
        assert_eq!(mb_text("+5"), "+5");
    }

    #[test]
    fn memory_a_record_adds_is_the_growth_over_the_records_added() {
        let (large, small) = (Some(36_700_160), Some(15_000_000));
        assert_eq!(per_record(large, small, 999_936, 99_840), "24 B");
        assert_eq!(per_record(None, small, 999_936, 99_840), "unknown");
        assert_eq!(per_record(large, small, 99_840, 99_840), "unknown");
    }

    #[test]
    fn elapsed_time_reads_both_of_times_forms() {
        assert_eq!(clock_seconds("0:00.14"), Some(0.14));
        assert_eq!(clock_seconds("1:02:03"), Some(3723.0));
        assert_eq!(clock_seconds("soon"), None);
    }
}
