//! `--bench`: latency statistics of repeated runs.

use std::time::Duration;

/// Median, minimum and maximum of a set of run times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Latency {
    pub runs: usize,
    pub median: Duration,
    pub min: Duration,
    pub max: Duration,
}

impl Latency {
    /// The statistics of `times` (at least one); an even count takes the mean of the two
    /// middle times as the median.
    pub fn of(times: &[Duration]) -> Option<Latency> {
        let mut sorted = times.to_vec();
        sorted.sort_unstable();
        let n = sorted.len();
        let median = match n {
            0 => return None,
            _ if n % 2 == 1 => sorted[n / 2],
            _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2,
        };
        Some(Latency {
            runs: n,
            median,
            min: sorted[0],
            max: sorted[n - 1],
        })
    }
}

impl std::fmt::Display for Latency {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "{} runs, median {:.3} ms, min {:.3} ms, max {:.3} ms",
            self.runs,
            ms(self.median),
            ms(self.min),
            ms(self.max)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_and_even_counts() {
        let ms = Duration::from_millis;
        let odd = Latency::of(&[ms(3), ms(1), ms(2)]).unwrap();
        assert_eq!((odd.median, odd.min, odd.max), (ms(2), ms(1), ms(3)));
        let even = Latency::of(&[ms(4), ms(1), ms(2), ms(3)]).unwrap();
        assert_eq!(even.median, Duration::from_micros(2500));
        assert_eq!(Latency::of(&[]), None);
    }

    #[test]
    fn prints_milliseconds() {
        let l = Latency::of(&[Duration::from_micros(12345)]).unwrap();
        assert_eq!(
            l.to_string(),
            "1 runs, median 12.345 ms, min 12.345 ms, max 12.345 ms"
        );
    }
}
