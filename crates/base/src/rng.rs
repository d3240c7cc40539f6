//! Seeded draws: randomness is passed in, never global, so a plan selection, a simulated
//! allocation or a retry's jitter is reproducible from its seed, and a test can hand the
//! descent the exact draws it wants. Below every layer that draws (`plan`, `llm`, `reflect`'s
//! bench), so the model layer does not import the plan for a random number.

/// A source of draws in [0, 1).
pub trait Draw {
    fn draw(&mut self) -> f64;
}

/// xorshift64* (Vigna 2016): tiny, fast and plenty for sampling among a few plans;
/// not for anything that needs unpredictability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// A zero state would stay zero forever, so seed 0 is mapped to a fixed odd constant.
    pub fn new(seed: u64) -> XorShift64 {
        XorShift64 {
            state: if seed == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                seed
            },
        }
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl Draw for XorShift64 {
    /// The top 53 bits as a fraction: every value is exact and below 1.
    fn draw(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// Draws given in advance (tests); cycles when it runs out, 0 if empty.
#[derive(Debug, Clone)]
pub struct Fixed {
    draws: Vec<f64>,
    next: usize,
}

impl Fixed {
    pub fn new(draws: &[f64]) -> Fixed {
        Fixed {
            draws: draws.to_vec(),
            next: 0,
        }
    }
}

impl Draw for Fixed {
    fn draw(&mut self) -> f64 {
        if self.draws.is_empty() {
            return 0.0;
        }
        let d = self.draws[self.next % self.draws.len()];
        self.next += 1;
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_draws_repeat_and_stay_in_range() {
        let a: Vec<f64> = {
            let mut r = XorShift64::new(7);
            (0..1000).map(|_| r.draw()).collect()
        };
        let b: Vec<f64> = {
            let mut r = XorShift64::new(7);
            (0..1000).map(|_| r.draw()).collect()
        };
        assert_eq!(a, b);
        assert!(a.iter().all(|d| (0.0..1.0).contains(d)));
        let mean = a.iter().sum::<f64>() / a.len() as f64;
        assert!((mean - 0.5).abs() < 0.05, "{mean}");
        let mut z = XorShift64::new(0);
        assert_ne!(z.next_u64(), 0);
        assert_ne!(XorShift64::new(8).draw(), a[0]);
    }

    #[test]
    fn fixed_draws_cycle() {
        let mut f = Fixed::new(&[0.1, 0.9]);
        assert_eq!([f.draw(), f.draw(), f.draw()], [0.1, 0.9, 0.1]);
        assert_eq!(Fixed::new(&[]).draw(), 0.0);
    }
}
