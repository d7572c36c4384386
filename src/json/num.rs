//! Numbers without floating-point arithmetic.
//!
//! Owns: reading JSON number text as an exact decimal ([`Dec`]: comparison
//! and `multipleOf` by exact integer arithmetic), decimal-to-double
//! conversion ([`Dec::to_f64`]) and double-to-text formatting
//! ([`format_f64`]), all on integers, so a firmware links neither core's
//! float parsing and formatting (about 20 KB of tables and code on
//! Cortex-M) nor soft-double arithmetic.
//! Must not: allocate, or use `f64` for anything but its bit pattern.
//!
//! Accuracy of the conversion to `f64`: the value is `w × 10^p` with `w` the
//! first (up to) 19 significant digits. When the number has at most 19
//! significant digits and `-27 <= p <= 27`, one exact integer multiplication
//! or long division by `5^|p|` leads to the correctly rounded result (the same
//! bits as Rust's `str::parse`). Otherwise two 64-bit multiplications (by
//! `5^r` and a rounded 64-bit mantissa of `10^(27q)`) carry an error below
//! a few units in the 64th bit; the result is correctly rounded unless the
//! value lies within that error of a halfway point between two doubles, and
//! then it is at most one ulp off. The tests check both against std on
//! hundreds of thousands of inputs.

use core::cmp::Ordering;

/// `10^(27q)` for `q` in `-13..=12`: the 64-bit mantissa rounded to nearest
/// (`10^(27q) ≈ m × 2^pow10_27_exp(q)`).
const POW10_27: [u64; 26] = [
    0x8049a4ac0c5811ae, // 10^-351
    0xcf42894a5dce35ea, // 10^-324
    0xa76c582338ed2622, // 10^-297
    0x873e4f75e2224e68, // 10^-270
    0xda7f5bf590966849, // 10^-243
    0xb080392cc4349ded, // 10^-216
    0x8e938662882af53e, // 10^-189
    0xe65829b3046b0afa, // 10^-162
    0xba121a4650e4ddec, // 10^-135
    0x964e858c91ba2655, // 10^-108
    0xf2d56790ab41c2a3, // 10^-81
    0xc428d05aa4751e4d, // 10^-54
    0x9e74d1b791e07e48, // 10^-27
    0x8000000000000000, // 10^0
    0xcecb8f27f4200f3a, // 10^27
    0xa70c3c40a64e6c52, // 10^54
    0x86f0ac99b4e8dafd, // 10^81
    0xda01ee641a708dea, // 10^108
    0xb01ae745b101e9e4, // 10^135
    0x8e41ade9fbebc27d, // 10^162
    0xe5d3ef282a242e82, // 10^189
    0xb9a74a0637ce2ee1, // 10^216
    0x95f83d0a1fb69cd9, // 10^243
    0xf24a01a73cf2dcd0, // 10^270
    0xc3b8358109e84f07, // 10^297
    0x9e19db92b4e31ba9, // 10^324
];

/// Units of the 64-bit mantissa around a halfway point inside which an
/// inexact conversion does not trust its rounding (its error is below 4).
const MARGIN: u128 = 8;
/// The same when digits beyond the 19th were dropped (at most 10^-18
/// relative, below 19 units).
const MARGIN_TRUNCATED: u128 = 64;

/// `5^n` for `n` in `0..=27` (`5^27 < 2^63`), by multiplication: a table
/// would be 224 bytes of flash for at most 27 multiplications saved.
fn pow5(n: i32) -> u64 {
    (0..n.clamp(0, 27)).fold(1u64, |v, _| v.wrapping_mul(5))
}

/// The binary exponent of [`POW10_27`]'s entry for `q`, `floor(27 q log2(10))`
/// minus 63 (5878059 / 2^16 ≈ 27 log2(10); exact for every `q` of the table,
/// which a test checks), so the table holds no exponents.
const fn pow10_27_exp(q: i32) -> i32 {
    ((q * 5_878_059) >> 16) - 63
}

/// `2^1024 - 2^970`, halfway between `f64::MAX` and `2^1024`, in full: the
/// least magnitude that rounds to infinity (a tie rounds to the even
/// mantissa, which is past `f64::MAX`'s).
const F64_OVERFLOW: &[u8] = b"\
    179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017\
    977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273\
    854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704\
    342711559699508093042880177904174497792";

/// [`F64_OVERFLOW`]'s digits two to a byte (high nibble first, the last low
/// nibble 0): the form kept in flash, half the bytes of the text.
// Evaluated by the compiler: an index out of range fails the build, it
// cannot panic at run time.
#[allow(clippy::indexing_slicing)]
const F64_OVERFLOW_PACKED: [u8; F64_OVERFLOW.len().div_ceil(2)] = {
    let mut out = [0u8; F64_OVERFLOW.len().div_ceil(2)];
    let mut k = 0;
    while k < F64_OVERFLOW.len() {
        let d = F64_OVERFLOW[k] - b'0';
        out[k / 2] |= if k % 2 == 0 { d << 4 } else { d };
        k += 1;
    }
    out
};

/// The first 20 significant digits of `2^-1075` (`0.24703... × 10^-323`,
/// 752 digits in all), halfway between 0 and the least subnormal double:
/// a magnitude at or below it rounds to zero.
const F64_UNDERFLOW_PREFIX: &[u8; 20] = b"24703282292062327208";

/// The largest exponent magnitude a number's text is read with: larger
/// ones are clamped to it (such a value is 0 or beyond `f64` either way).
const EXP_CLAMP: u64 = 1_000_000_000_000_000_000;

/// Where [`Dec::int_part_diff`] stops counting: a difference of integer
/// parts is exact up to this magnitude (enough to compare integers built
/// from them with offsets of ±1 on each side).
pub(crate) const INT_DIFF_CLAMP: i64 = 3;

/// Zero, as [`Dec::parse`] reads `0`.
pub(crate) const ZERO: Dec<'static> = Dec {
    neg: false,
    int: b"0",
    frac: &[],
    lo: 0,
    nd: 0,
    exp: 0,
};

/// The text of a JSON number read as an exact decimal.
#[derive(Clone, Copy)]
pub struct Dec<'a> {
    neg: bool,
    int: &'a [u8],
    frac: &'a [u8],
    /// Index of the first significant digit in `int ++ frac`.
    lo: usize,
    /// Significant digits, first to last non-zero one; 0 for zero.
    nd: usize,
    /// The value is `0.d1 d2 d3 ... × 10^exp` (0 for zero).
    exp: i64,
}

impl<'a> Dec<'a> {
    /// Reads JSON number text (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`;
    /// leading zeros are tolerated); `None` for anything else.
    pub fn parse(raw: &'a [u8]) -> Option<Self> {
        fn digits(s: &[u8]) -> (&[u8], &[u8]) {
            s.split_at(s.iter().take_while(|b| b.is_ascii_digit()).count())
        }
        let (neg, s) = match raw.split_first() {
            Some((b'-', r)) => (true, r),
            _ => (false, raw),
        };
        let (int, rest) = digits(s);
        if int.is_empty() {
            return None;
        }
        let (frac, rest) = match rest.split_first() {
            Some((b'.', r)) => {
                let (f, r) = digits(r);
                if f.is_empty() {
                    return None;
                }
                (f, r)
            }
            _ => (&[][..], rest),
        };
        let e = match rest.split_first() {
            None => 0,
            Some((b'e' | b'E', r)) => {
                let (sign, r) = match r.split_first() {
                    Some((b'-', r)) => (-1, r),
                    Some((b'+', r)) => (1, r),
                    _ => (1, r),
                };
                let (d, r) = digits(r);
                if d.is_empty() || !r.is_empty() {
                    return None;
                }
                // Clamped at 10^18 (as the saturating steps this replaces
                // stopped near i64::MAX), so that no sum or difference of
                // exponents below can overflow an i64: plain additions.
                let mag = d.iter().fold(0u64, |v, &c| {
                    if v >= EXP_CLAMP / 10 {
                        EXP_CLAMP
                    } else {
                        v * 10 + u64::from(c - b'0')
                    }
                });
                sign * mag as i64
            }
            _ => return None,
        };
        // First and last non-zero digit of int ++ frac, in one pass.
        let (mut lo, mut hi) = (usize::MAX, 0);
        let all = int.iter().chain(frac.iter());
        for (i, _) in all.enumerate().filter(|&(_, &b)| b != b'0') {
            lo = lo.min(i);
            hi = i + 1;
        }
        let nd = hi.saturating_sub(lo);
        let exp = if nd == 0 {
            0
        } else {
            // |e| <= 10^18 and the digit counts are below 2^32 (the
            // tokenizer's length limit): no overflow.
            int.len() as i64 - lo as i64 + e
        };
        Some(Dec {
            neg,
            int,
            frac,
            lo,
            nd,
            exp,
        })
    }

    /// The `k`-th significant digit (0 beyond the last).
    fn digit(&self, k: usize) -> u8 {
        if k >= self.nd {
            return 0;
        }
        let i = self.lo + k;
        let b = match i.checked_sub(self.int.len()) {
            None => self.int.get(i),
            Some(f) => self.frac.get(f),
        };
        b.map_or(0, |b| b.wrapping_sub(b'0'))
    }

    /// True for zero (`0`, `-0.0`, `0e400`).
    pub fn is_zero(&self) -> bool {
        self.nd == 0
    }

    /// True for a value above zero.
    pub fn is_positive(&self) -> bool {
        self.nd != 0 && !self.neg
    }

    /// Number of significant digits (from the first to the last non-zero one).
    pub fn significant_digits(&self) -> usize {
        self.nd
    }

    /// The value as an `i64`, exactly: `Err(true)` when it is not an
    /// integer (`1.5`, `1e-400`), `Err(false)` when it is one outside the
    /// range (`1e19`).
    pub fn to_i64(&self) -> Result<i64, bool> {
        if self.nd == 0 {
            return Ok(0);
        }
        // 0.d1 d2 ... dnd × 10^exp is an integer when every digit is before the point.
        if self.exp < self.nd as i64 {
            return Err(true);
        }
        if self.exp > 19 {
            return Err(false);
        }
        // At most 19 digits: the magnitude fits a u64 without a check
        // (no checked 64-bit steps per digit), the sign's range once after.
        let mut m: u64 = 0;
        for k in 0..self.exp as usize {
            m = m * 10 + u64::from(self.digit(k));
        }
        if self.neg {
            // -2^63 is i64::MIN itself.
            (m <= 1 << 63)
                .then(|| (m as i64).wrapping_neg())
                .ok_or(false)
        } else {
            i64::try_from(m).map_err(|_| false)
        }
    }

    /// The value as `digits × 10^exp10` without floating point: exact for
    /// up to 18 significant digits, else the nearest such (the 19th digit
    /// rounds half up); an integer that fits is given with `exp10` 0.
    pub fn to_decimal(&self) -> (i64, i32) {
        if self.nd == 0 {
            return (0, 0);
        }
        let n = self.nd.min(18);
        let mut m: i64 = 0;
        for k in 0..n {
            m = m * 10 + i64::from(self.digit(k));
        }
        if self.nd > n && self.digit(n) >= 5 {
            m += 1;
        }
        let mut e = self.exp - n as i64;
        while e > 0 && m <= i64::MAX / 10 {
            m *= 10;
            e -= 1;
        }
        let e = e.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
        (if self.neg { -m } else { m }, e)
    }

    /// Whether the value is within f64's range (its nearest double is
    /// finite): a magnitude below [`F64_OVERFLOW`], compared exactly, so
    /// checking a number links no conversion to `f64`.
    pub fn is_finite_f64(&self) -> bool {
        if self.exp != 309 {
            return self.exp <= 308;
        }
        let limit = |k: usize| {
            F64_OVERFLOW_PACKED
                .get(k / 2)
                .map_or(0, |b| if k % 2 == 0 { b >> 4 } else { b & 0xF })
        };
        // Below the limit in its first differing digit; equal is not below.
        (0..self.nd.max(F64_OVERFLOW.len()))
            .map(|k| self.digit(k).cmp(&limit(k)))
            .find(|c| c.is_ne())
            .is_some_and(Ordering::is_lt)
    }

    /// Whether the value's nearest double is zero (a magnitude at or below
    /// `2^-1075`), compared in decimal, so checking a number links no
    /// conversion to `f64`. Exact for values of up to 20 significant digits.
    /// With more, one whose first 20 digits are those of `2^-1075` is taken
    /// as not rounding to zero: the only caller (registration's `multipleOf`
    /// check) refuses it for its digit count then.
    pub fn rounds_to_zero_f64(&self) -> bool {
        if self.nd == 0 || self.exp != -323 {
            return self.nd == 0 || self.exp < -323;
        }
        let limit = F64_UNDERFLOW_PREFIX.iter().map(|b| b - b'0');
        match (0..)
            .zip(limit)
            .map(|(k, l)| self.digit(k).cmp(&l))
            .find(|c| c.is_ne())
        {
            Some(c) => c.is_lt(),
            // The 20-digit prefix itself is below 2^-1075.
            None => self.nd <= F64_UNDERFLOW_PREFIX.len(),
        }
    }

    /// True for a negative value (`-0` included).
    pub fn is_negative(&self) -> bool {
        self.neg
    }

    fn signum(&self) -> i8 {
        match (self.nd, self.neg) {
            (0, _) => 0,
            (_, true) => -1,
            _ => 1,
        }
    }

    /// Exact numeric comparison (`-0` equals `0`, `1.50` equals `15e-1`).
    pub fn cmp_value(&self, o: &Dec<'_>) -> Ordering {
        let (a, b) = (self.signum(), o.signum());
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        let mag = self.exp.cmp(&o.exp).then_with(|| {
            (0..self.nd.max(o.nd))
                .map(|k| self.digit(k).cmp(&o.digit(k)))
                .find(|c| c.is_ne())
                .unwrap_or(Ordering::Equal)
        });
        if a < 0 { mag.reverse() } else { mag }
    }

    /// True when the value is an integer (`2`, `2.50e1`, `-0`; not `2.5`).
    pub fn is_integer(&self) -> bool {
        self.exp >= self.nd as i64
    }

    /// `trunc(|o|) - trunc(|self|)`, the difference of the magnitudes'
    /// integer parts, exactly when it lies within `±INT_DIFF_CLAMP`, else
    /// that bound with its sign: digit by digit from the highest, no
    /// integer built (`1e400` and `12345678901234567890.5` are exact).
    pub fn int_part_diff(&self, o: &Dec<'_>) -> i64 {
        // Power of ten of a value's first and last significant digit.
        let top = |d: &Dec<'_>| if d.nd == 0 { i64::MIN } else { d.exp - 1 };
        let low = |d: &Dec<'_>| {
            if d.nd == 0 {
                i64::MAX
            } else {
                d.exp - d.nd as i64
            }
        };
        let at = |d: &Dec<'_>, p: i64| {
            let k = d.exp - 1 - p;
            if (0..d.nd as i64).contains(&k) {
                i64::from(d.digit(k as usize))
            } else {
                0
            }
        };
        let mut diff = 0i64;
        let mut p = top(self).max(top(o));
        while p >= 0 {
            if p < low(self) && p < low(o) {
                // Only zeros below: a difference is multiplied by 10^(p+1).
                return diff.signum() * INT_DIFF_CLAMP;
            }
            // Once beyond the bound the difference stays there (10 × 3 - 9 > 3).
            diff = (diff * 10 + at(o, p) - at(self, p)).clamp(-INT_DIFF_CLAMP, INT_DIFF_CLAMP);
            if diff.abs() == INT_DIFF_CLAMP {
                return diff;
            }
            p -= 1;
        }
        diff
    }

    /// Whether `self / m` is an integer, exactly. `None` when `m` is zero or
    /// has more than 19 significant digits.
    // Out of line: inlined, its wide temporaries sat in the validator's
    // `check_rules` frame at every nesting level, `multipleOf` or not.
    #[inline(never)]
    pub fn is_multiple_of(&self, m: &Dec<'_>) -> Option<bool> {
        if m.nd == 0 || m.nd > 19 {
            return None;
        }
        let b = (0..m.nd).fold(0u64, |v, k| v * 10 + u64::from(m.digit(k)));
        if self.nd == 0 {
            return Some(true);
        }
        // self = a × 10^pa and m = b × 10^pb with a, b free of trailing
        // zeros. For pa < pb, a / (b × 10^(pb-pa)) would need a to end in 0.
        let e = self.last_exp() - m.last_exp();
        if e < 0 {
            return Some(false);
        }
        let reduce = |mut d: u64| {
            while d >= b {
                d -= b;
            }
            d
        };
        let ten = reduce(10);
        let mut r = 0;
        for k in 0..self.nd {
            r = add_mod(mul_mod(r, 10, b), reduce(u64::from(self.digit(k))), b);
        }
        // r × 10^e mod b, by squaring.
        let (mut base, mut e) = (ten, e);
        while e > 0 && r != 0 {
            if e & 1 == 1 {
                r = mul_mod(r, base, b);
            }
            base = mul_mod(base, base, b);
            e >>= 1;
        }
        Some(r == 0)
    }

    /// Exponent of the last significant digit: the value is `digits × 10^this`.
    fn last_exp(&self) -> i64 {
        self.exp - self.nd as i64
    }

    /// The nearest `f64` (infinite beyond its range); see the module
    /// documentation for when it is correctly rounded.
    pub fn to_f64(&self) -> f64 {
        self.convert().0
    }

    /// The conversion, and whether its rounding is certain (correct).
    fn convert(&self) -> (f64, bool) {
        let sign = u64::from(self.neg) << 63;
        if self.nd == 0 || self.exp < -324 {
            return (f64::from_bits(sign), true); // below half the least subnormal
        }
        if self.exp > 310 {
            return (f64::from_bits(sign | INF), true);
        }
        let n = self.nd.min(19);
        let w = (0..n).fold(0u64, |v, k| v * 10 + u64::from(self.digit(k)));
        // Bounded above: |exp| <= 324 and n <= 19.
        let p = (self.exp - n as i64) as i32;
        let (mut x, exact) = Ext::new(w, 0).scale(p);
        let truncated = self.nd > n;
        x.sticky |= truncated;
        let margin = if truncated { MARGIN_TRUNCATED } else { MARGIN };
        x.round(self.neg, if exact && !truncated { 0 } else { margin })
    }
}

const INF: u64 = 0x7ff0_0000_0000_0000;
const ABS: u64 = !(1 << 63);

/// `v.is_finite()` on the bit pattern: core's compares floats, which is
/// soft-double library code on MCUs without a double-precision FPU.
pub fn is_finite(v: f64) -> bool {
    v.to_bits() & ABS < INF
}

/// `v.is_nan()` on the bit pattern.
pub fn is_nan(v: f64) -> bool {
    v.to_bits() & ABS > INF
}

/// `v >= 0.0` on the bit pattern (true for -0.0, false for NaN).
pub fn is_non_negative(v: f64) -> bool {
    // Positive values have the sign bit clear; -0.0 is exactly the sign bit.
    !is_nan(v) && v.to_bits() <= 1 << 63
}

/// `v > 1.0` on the bit pattern (false for NaN).
pub fn is_above_one(v: f64) -> bool {
    !is_nan(v) && v.to_bits() >> 63 == 0 && v.to_bits() > 1f64.to_bits()
}

/// `(a + b) mod m` for `a, b < m`.
#[cfg_attr(target_os = "none", inline(never))]
fn add_mod(a: u64, b: u64, m: u64) -> u64 {
    let (s, carry) = a.overflowing_add(b);
    if carry || s >= m {
        s.wrapping_sub(m)
    } else {
        s
    }
}

/// `(a × b) mod m` for `a < m`, by doubling (no division, no 128-bit product).
fn mul_mod(a: u64, mut b: u64, m: u64) -> u64 {
    let (mut r, mut x) = (0, a);
    while b != 0 {
        if b & 1 == 1 {
            r = add_mod(r, x, m);
        }
        x = add_mod(x, x, m);
        b >>= 1;
    }
    r
}

/// An extended-precision unsigned float `m × 2^e`, `m` normalized (top bit
/// set); `sticky` records non-zero bits dropped below `m`.
#[derive(Clone, Copy)]
struct Ext {
    m: u64,
    e: i32,
    sticky: bool,
}

impl Ext {
    /// `m × 2^e` for `m != 0`.
    fn new(m: u64, e: i32) -> Ext {
        let s = m.leading_zeros();
        Ext {
            m: m << s,
            e: e - s as i32,
            sticky: false,
        }
    }

    /// Multiplies by `c × 2^ce` (`c != 0`), keeping the top 64 bits.
    #[inline(never)] // three call sites; inlined each costs ~150 B on Thumb
    fn mul(&mut self, c: u64, ce: i32) {
        let p = u128::from(self.m) * u128::from(c);
        let s = p.leading_zeros();
        let p = p << s;
        self.m = (p >> 64) as u64;
        self.sticky |= p as u64 != 0;
        self.e += ce + 64 - s as i32;
    }

    /// Divides by `d` (`0 < d < 2^63`): 64 quotient bits, the rest sticky.
    fn div(&mut self, d: u64) {
        let (mut q, mut r) = (self.m / d, self.m % d);
        let mut shift = 0;
        while q < 1 << 63 {
            // As many quotient bits per division as r and q have room for
            // (at least one: r < d < 2^63): 1-2 steps for d below 2^32.
            let k = r.leading_zeros().min(q.leading_zeros());
            r <<= k;
            q = (q << k) | (r / d);
            r %= d;
            shift += k as i32;
        }
        self.m = q;
        self.e -= shift;
        self.sticky |= r != 0;
    }

    /// Multiplies by `10^p` (`p` in -351..=350); also says whether the
    /// result is exact up to `sticky` (one operation on exact operands).
    fn scale(mut self, p: i32) -> (Ext, bool) {
        let exact = !self.sticky;
        if matches!(p, 0..=27) {
            self.mul(pow5(p), p); // 10^p = 5^p × 2^p
            (self, exact)
        } else if (-27..0).contains(&p) {
            self.div(pow5(-p));
            self.e += p;
            (self, exact)
        } else {
            let (q, r) = (p.div_euclid(27), p.rem_euclid(27));
            self.mul(pow5(r), r);
            let (m, e) = usize::try_from(q + 13)
                .ok()
                .and_then(|i| POW10_27.get(i))
                .map_or((1 << 63, -63), |&m| (m, pow10_27_exp(q)));
            self.mul(m, e);
            (self, false)
        }
    }

    /// Rounds to the nearest `f64` (ties to even), signed by `neg`; the flag
    /// is false when the rounding bits are within `margin` units of halfway.
    fn round(&self, neg: bool, margin: u128) -> (f64, bool) {
        let sign = u64::from(neg) << 63;
        let top = self.e + 63; // the value is in [2^top, 2^(top+1))
        if top > 1023 {
            return (f64::from_bits(sign | INF), true);
        }
        // Bits of m below the f64 mantissa (more for subnormals).
        let shift = if top >= -1022 {
            11
        } else {
            11 + (-1022 - top) as u32
        };
        if shift > 64 {
            return (f64::from_bits(sign), true); // below half the least subnormal
        }
        let m = u128::from(self.m);
        let mant = (m >> shift) as u64;
        let rem = m & ((1 << shift) - 1);
        let half = 1u128 << (shift - 1);
        let up = rem > half || (rem == half && (self.sticky || mant & 1 == 1));
        let certain = margin == 0 || rem.abs_diff(half) > margin;
        // For a normal number mant carries the implicit bit, which adds one
        // to the exponent field; a carry out of the mantissa does the same.
        let field = if top >= -1022 { (top + 1022) as u64 } else { 0 };
        let bits = ((field << 52) + mant + u64::from(up)).min(INF);
        (f64::from_bits(sign | bits), certain)
    }

    /// The integer part of a value below 2^64, and whether a fraction
    /// remains: (integer, fraction bits scaled to 2^64, sticky).
    fn split(&self) -> (u64, u64, bool) {
        let s = (-self.e).clamp(0, 64) as u32;
        if s == 0 {
            return (self.m, 0, self.sticky);
        }
        let m = u128::from(self.m) << 64 >> s;
        ((m >> 64) as u64, m as u64, self.sticky)
    }
}

/// Longest text [`format_f64`] writes (`-1.2345678901234567e-308`).
pub(crate) const F64_TEXT_MAX: usize = 24;

/// Writes a finite `v` as JSON number text into `out` and returns its length,
/// in the form of Rust's `{:?}`: `1.0`, `0.1`, `123.456`, and an exponent
/// outside 1e-4 ..= 1e16 (`1e16`, `1.5e-7`). The digits are the shortest of
/// 15, 16 or 17 significant ones that read back to `v`, so they equal core's
/// shortest form except rarely (subnormals, and values whose shorter forms
/// this module cannot tell apart with certainty), where 17 digits are
/// written; every text reads back to exactly `v`. Returns 0 for NaN and
/// infinities.
pub fn format_f64(v: f64, out: &mut [u8; F64_TEXT_MAX]) -> usize {
    let bits = v.to_bits();
    let neg = bits >> 63 != 0;
    let field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let mut o = Out { buf: out, len: 0 };
    if field == 0x7ff {
        return 0;
    }
    if neg {
        o.push(b'-');
    }
    if field == 0 && frac == 0 {
        o.push_all(b"0.0");
        return o.len;
    }
    let x = if field == 0 {
        Ext::new(frac, -1074)
    } else {
        Ext::new(frac | 1 << 52, field - 1075)
    };
    let (mut t, dexp) = shortest(x, neg, v.to_bits());
    // The value is 0.d × 10^dexp; d as ASCII, most significant first.
    let mut d = [b'0'; 20];
    let mut nd = 0;
    while t != 0 {
        d.copy_within(0..19, 1);
        d[0] = b'0' + (t % 10) as u8;
        t /= 10;
        nd += 1;
    }
    let digit = |i: usize| d.get(i).copied().unwrap_or(b'0');
    if matches!(dexp, -3..=16) {
        // 0.000ddd, ddd.ddd or ddd000.0
        let point = dexp.max(0) as usize;
        if dexp <= 0 {
            o.push_all(b"0.");
            (0..dexp.unsigned_abs()).for_each(|_| o.push(b'0'));
        }
        for i in 0..nd.max(point) {
            if i == point && point > 0 {
                o.push(b'.');
            }
            o.push(digit(i));
        }
        if nd <= point {
            o.push_all(b".0");
        }
    } else {
        // d.ddde-x
        for i in 0..nd {
            o.push(digit(i));
            if i == 0 && nd > 1 {
                o.push(b'.');
            }
        }
        o.push(b'e');
        let e = dexp - 1;
        if e < 0 {
            o.push(b'-');
        }
        let e = e.unsigned_abs();
        for (div, show) in [(100, e >= 100), (10, e >= 10), (1, true)] {
            if show {
                o.push(b'0' + (e / div % 10) as u8);
            }
        }
    }
    o.len
}

struct Out<'b> {
    buf: &'b mut [u8; F64_TEXT_MAX],
    len: usize,
}

impl Out<'_> {
    fn push(&mut self, b: u8) {
        if let Some(s) = self.buf.get_mut(self.len) {
            *s = b;
            self.len += 1;
        }
    }
    fn push_all(&mut self, s: &[u8]) {
        s.iter().for_each(|&b| self.push(b));
    }
}

/// The shortest of 15, 16 or 17 significant digits that reads back to `x`
/// (the bits `want`), without trailing zeros, and the decimal exponent
/// `dexp` with `x = 0.digits × 10^dexp`.
fn shortest(x: Ext, neg: bool, want: u64) -> (u64, i32) {
    const P16: u64 = 10_000_000_000_000_000;
    // floor(log10(2^top)) via 78913 / 2^18 ≈ log10(2).
    let top = x.e + 63;
    let mut k = 16 - ((top * 78913) >> 18);
    // X = x × 10^k in [10^16, 10^17); the estimate may be one too small.
    let (mut int, mut frac, mut sticky) = x.scale(k).0.split();
    if int >= 10 * P16 {
        k -= 1;
        (int, frac, sticky) = x.scale(k).0.split();
    } else if int < P16 {
        k += 1;
        (int, frac, sticky) = x.scale(k).0.split();
    }
    let mut best = (0, 0);
    for n in [15u32, 16, 17] {
        let pow = 10u64.pow(17 - n);
        let (q, r) = (int / pow, int % pow);
        let up = if pow == 1 {
            frac > 1 << 63 || (frac == 1 << 63 && (sticky || q & 1 == 1))
        } else {
            let half = pow / 2;
            r > half || (r == half && (frac != 0 || sticky || q & 1 == 1))
        };
        let d = q + u64::from(up);
        // The value is d × 10^p.
        let p = 17 - n as i32 - k;
        best = (d, p);
        if n == 17 {
            break;
        }
        let (back, exact) = Ext::new(d, 0).scale(p);
        let (back, certain) = back.round(neg, if exact { 0 } else { MARGIN });
        if certain && back.to_bits() == want {
            break;
        }
    }
    let (mut d, p) = best;
    let mut nd = 0i32;
    let mut t = d;
    while t != 0 {
        t /= 10;
        nd += 1;
    }
    while d % 10 == 0 && d != 0 {
        d /= 10;
    }
    (d, p + nd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Dec<'_> {
        Dec::parse(s.as_bytes()).unwrap()
    }

    /// Integer parts compared exactly, clamped at ±INT_DIFF_CLAMP, checked
    /// against i128 arithmetic where that holds the values.
    #[test]
    fn int_part_diff_is_exact_within_its_clamp() {
        let texts = [
            "0",
            "-0",
            "0.5",
            "-0.5",
            "1",
            "2.9",
            "3",
            "3.0",
            "29e-1",
            "0.3e1",
            "-2.5",
            "-3",
            "9",
            "10",
            "11",
            "99",
            "100",
            "1e2",
            "999.9",
            "1000",
            "99999999999999999999",
            "1e20",
            "100000000000000000001",
            "12345678901234567890.5",
            "1e-400",
            "5e-1",
        ];
        for a in texts {
            for b in texts {
                let trunc = |t: &str| {
                    // |value| < 1e21 here: its integer part by i128 on the digits.
                    let (int, frac_exp) = match t.split_once(['e', 'E']) {
                        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
                        None => (t, 0),
                    };
                    let m = int.trim_start_matches('-');
                    let (i, f) = m.split_once('.').unwrap_or((m, ""));
                    let digits: String = format!("{i}{f}");
                    let shift = frac_exp - f.len() as i32;
                    let mut v: i128 = digits.parse().unwrap();
                    if shift >= 0 {
                        v *= 10i128.pow(shift as u32);
                    } else if shift > -30 {
                        v /= 10i128.pow((-shift) as u32);
                    } else {
                        v = 0;
                    }
                    v
                };
                let want =
                    (trunc(b) - trunc(a)).clamp(-INT_DIFF_CLAMP as i128, INT_DIFF_CLAMP as i128);
                assert_eq!(i128::from(dec(a).int_part_diff(&dec(b))), want, "{a} {b}");
            }
        }
        assert_eq!(dec("1e400").int_part_diff(&dec("1e400")), 0);
        assert_eq!(dec("1e400").int_part_diff(&dec("10e399")), 0);
        assert_eq!(dec("1e400").int_part_diff(&dec("1.5e400")), INT_DIFF_CLAMP);
        assert_eq!(ZERO.int_part_diff(&dec("2.999")), 2);
        assert!(dec("2.50e1").is_integer() && dec("-0").is_integer() && !dec("2.5").is_integer());
    }

    /// Exponents of any length read without overflow: ordered exactly up to
    /// the clamp (10^18), beyond f64 or zero past it, and the plain sums and
    /// differences of exponents stay in range at the extremes.
    #[test]
    fn long_exponents_stay_ordered() {
        use Ordering::*;
        let huge = "1e99999999999999999999999999";
        let tiny = "1e-99999999999999999999999999";
        for (a, b, want) in [
            (huge, "1e308", Greater),
            (tiny, "0", Greater),
            (tiny, "1e-400", Less),
            (&format!("-{huge}"), "-1e999999999999999999", Less),
            ("1e1000000000000000001", "1e2000000000000000000", Equal),
            ("1e999999999999999998", "1e999999999999999999", Less),
            ("1e99999999999999999", "1e99999999999999998", Greater),
            ("123e-99999999999999999", "124e-99999999999999999", Less),
            (huge, tiny, Greater),
            ("0e99999999999999999999", "0", Equal),
        ] {
            assert_eq!(dec(a).cmp_value(&dec(b)), want, "{a} vs {b}");
        }
        assert!(!dec(huge).is_finite_f64() && dec(tiny).rounds_to_zero_f64());
        assert_eq!(
            dec("1e-99999999999999999999").is_multiple_of(&dec("1e99999999999999999999")),
            Some(false)
        );
        assert_eq!(dec(huge).is_multiple_of(&dec(tiny)), Some(true));
    }

    #[test]
    fn parses_json_numbers_only() {
        for bad in [
            "", "-", "1.", ".5", "1e", "1e+", "+1", "1x", "1.5.5", "0x10", "--1",
        ] {
            assert!(Dec::parse(bad.as_bytes()).is_none(), "{bad}");
        }
        let d = dec("-0012.3400e-2");
        assert_eq!((d.neg, d.nd, d.exp), (true, 4, 0));
        assert!(dec("-0.000e5").is_zero() && dec("0e400").is_zero());
    }

    #[test]
    fn powers_without_tables() {
        // The exponents the table used to hold.
        const EXP: [i32; 26] = [
            -1229, -1140, -1050, -960, -871, -781, -691, -602, -512, -422, -333, -243, -153, -63,
            26, 116, 206, 295, 385, 475, 564, 654, 744, 833, 923, 1013,
        ];
        for (q, e) in (-13..=12).zip(EXP) {
            assert_eq!(pow10_27_exp(q), e, "q={q}");
        }
        for n in 0..=27 {
            assert_eq!(pow5(n), 5u64.pow(n as u32));
        }
        assert_eq!(pow5(-1), 1);
        assert_eq!(pow5(28), 5u64.pow(27));
    }

    #[test]
    fn integers_convert_exactly() {
        let cases: [(&str, Result<i64, bool>); 16] = [
            ("0", Ok(0)),
            ("-0.0e7", Ok(0)),
            ("1e18", Ok(1_000_000_000_000_000_000)),
            ("100e-2", Ok(1)),
            ("12.50e1", Ok(125)),
            ("-7", Ok(-7)),
            ("9223372036854775807", Ok(i64::MAX)),
            ("-9223372036854775808", Ok(i64::MIN)),
            ("922337203685477580.7e1", Ok(i64::MAX)),
            ("9223372036854775808", Err(false)),
            ("-9223372036854775809", Err(false)),
            ("1e19", Err(false)),
            ("1.5e400", Err(false)),
            ("1.5", Err(true)),
            ("1e-400", Err(true)),
            ("123456789012345678901e-1", Err(true)),
        ];
        for (text, want) in cases {
            assert_eq!(dec(text).to_i64(), want, "{text}");
        }
    }

    #[test]
    fn compares_exactly() {
        use Ordering::*;
        let cases = [
            ("1", "1.0", Equal),
            ("-0", "0", Equal),
            ("1.5", "15e-1", Equal),
            ("100", "1e2", Equal),
            ("0.1", "0.10000000000000001", Less),
            // Equal as f64, different as decimals.
            ("9007199254740993", "9007199254740992", Greater),
            ("1e-400", "0", Greater),
            ("-1e-400", "0", Less),
            ("-2", "-10", Greater),
            ("-2.5", "-2.49", Less),
            ("12345678901234567890123", "12345678901234567890124", Less),
            ("1e99999999999999999999", "1e400", Greater),
            ("120", "99.999", Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(dec(a).cmp_value(&dec(b)), want, "{a} vs {b}");
            assert_eq!(dec(b).cmp_value(&dec(a)), want.reverse(), "{b} vs {a}");
        }
    }

    #[test]
    fn multiple_of_is_exact() {
        let yes = [
            ("10", "5"),
            ("0.3", "0.1"),
            ("-7.5", "2.5"),
            ("0", "7"),
            ("7e300", "7e-3"),
            ("3e300", "3"),
            ("1e300", "8e-3"),
            ("12345678901234567890", "5"),
            ("4.35", "0.05"),
            ("19999999999999999998", "9999999999999999999"),
        ];
        let no = [
            ("10", "3"),
            ("0.35", "0.1"),
            ("1e300", "7"),
            ("1e300", "3"),
            ("1.0000000000000001", "1"),
            ("12345678901234567891", "5"),
            ("0.1", "0.3"),
        ];
        for (v, m) in yes {
            assert_eq!(dec(v).is_multiple_of(&dec(m)), Some(true), "{v} / {m}");
        }
        for (v, m) in no {
            assert_eq!(dec(v).is_multiple_of(&dec(m)), Some(false), "{v} / {m}");
        }
        assert_eq!(dec("1").is_multiple_of(&dec("0.0")), None);
        assert_eq!(dec("1").is_multiple_of(&dec("12345678901234567891")), None);
        // Against i128 arithmetic on random integers and scales.
        let mut rng = Rng(7);
        for _ in 0..20_000 {
            let a = (rng.next() % 2_000_000) as i128 - 1_000_000;
            let b = (rng.next() % 999 + 1) as i128;
            let (sa, sb) = ((rng.next() % 4) as u32, (rng.next() % 4) as u32);
            // a / 10^sa is a multiple of b / 10^sb iff a × 10^sb is a multiple of b × 10^sa.
            let want = (a * 10i128.pow(sb)) % (b * 10i128.pow(sa)) == 0;
            let (va, vb) = (format!("{a}e-{sa}"), format!("{b}e-{sb}"));
            assert_eq!(
                dec(&va).is_multiple_of(&dec(&vb)),
                Some(want),
                "{va} / {vb}"
            );
        }
    }

    /// xorshift64*: a reproducible generator for the differential tests.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    fn ulps(a: f64, b: f64) -> u64 {
        if a.is_sign_negative() != b.is_sign_negative() {
            return a.to_bits() & !(1 << 63) | b.to_bits() & !(1 << 63);
        }
        a.to_bits().abs_diff(b.to_bits())
    }

    fn check_parse(s: &str, stats: &mut [u64; 3]) {
        let want: f64 = s.parse().unwrap();
        let d = dec(s);
        let (got, certain) = d.convert();
        let exact_class = d.nd <= 19 && (-27..=27).contains(&(d.exp - d.nd as i64));
        if exact_class || certain {
            assert_eq!(got.to_bits(), want.to_bits(), "{s}: {got:e} vs {want:e}");
        } else {
            assert!(ulps(got, want) <= 1, "{s}: {got:e} vs {want:e}");
        }
        stats[0] += 1;
        stats[1] += u64::from(got.to_bits() != want.to_bits());
        stats[2] += u64::from(!certain);
    }

    #[test]
    fn parse_matches_std() {
        let fixed = [
            "0",
            "-0",
            "-0.0",
            "1",
            "0.1",
            "0.2",
            "0.3",
            "23.4",
            "21.5",
            "-273.15",
            "1e22",
            "1e23",
            "9007199254740993",
            "9007199254740992.5",
            "18446744073709551615",
            "18446744073709551616",
            "123456789012345678901234567890",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e308",
            "1e309",
            "1e400",
            "2.2250738585072014e-308",
            "2.2250738585072011e-308",
            "4.9406564584124654e-324",
            "2.4703282292062328e-324",
            "2.4703282292062327e-324",
            "1e-324",
            "5e-324",
            "1e-400",
            "0.000001",
            "3.14159265358979323846264338327950288",
            "2.5",
            "0.5e-0",
            "100e-2",
            "1e-99999999999999999999",
            "7.2057594037927933e16",
        ];
        let mut stats = [0; 3];
        for s in fixed {
            check_parse(s, &mut stats);
            check_parse(&format!("-{s}").replace("--", "-"), &mut stats);
        }
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut text = String::new();
        for i in 0..300_000u32 {
            text.clear();
            let r = rng.next();
            match i % 4 {
                // Random doubles printed shortest, with 17 digits, and a few ulps off.
                0 => {
                    let v = f64::from_bits(r >> 1);
                    if !v.is_finite() {
                        continue;
                    }
                    text.push_str(&format!("{v:e}"));
                }
                1 => {
                    let v = f64::from_bits(r >> 1);
                    if !v.is_finite() {
                        continue;
                    }
                    text.push_str(&format!("{v:.16e}"));
                }
                // Short decimals like sensor readings and bounds.
                2 => {
                    let digits = rng.next() % 10_000_000;
                    let e = (rng.next() % 60) as i64 - 30;
                    text.push_str(&format!("{digits}e{e}"));
                }
                // Long digit strings at any exponent.
                _ => {
                    let n = 1 + rng.next() % 30;
                    for _ in 0..n {
                        text.push(char::from(b'0' + (rng.next() % 10) as u8));
                    }
                    let e = (rng.next() % 700) as i64 - 350;
                    text.push_str(&format!("e{e}"));
                }
            }
            check_parse(&text, &mut stats);
        }
        // Correctly rounded almost always: at most 1 in 1,000 differ by an ulp.
        assert!(stats[1] * 1000 <= stats[0], "{stats:?}");
        println!(
            "parse: {} inputs, {} off by one ulp, {} uncertain",
            stats[0], stats[1], stats[2]
        );
    }

    fn fmt(v: f64) -> String {
        let mut buf = [0; F64_TEXT_MAX];
        let n = format_f64(v, &mut buf);
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    /// `rounds_to_zero_f64` against std's parse around `2^-1075`, whose
    /// digits are those of `5^1075` (computed here by multiplying decimal
    /// digits), so the constant is checked too.
    #[test]
    fn underflow_check_matches_std() {
        let mut digits: Vec<u32> = vec![1]; // least significant first
        for _ in 0..1075 {
            let mut carry = 0;
            for d in digits.iter_mut() {
                let v = *d * 5 + carry;
                (*d, carry) = (v % 10, v / 10);
            }
            while carry > 0 {
                digits.push(carry % 10);
                carry /= 10;
            }
        }
        let t: String = digits
            .iter()
            .rev()
            .map(|d| char::from(b'0' + *d as u8))
            .collect();
        assert_eq!(t.len(), 752);
        assert_eq!(
            &t[..20],
            core::str::from_utf8(F64_UNDERFLOW_PREFIX).unwrap()
        );
        let p20 = &t[..20];
        let mut texts = vec![
            "0".to_string(),
            "1e-400".to_string(),
            "1e-324".to_string(),
            "2e-324".to_string(),
            "3e-324".to_string(),
            "4.9e-324".to_string(),
            "1e-323".to_string(),
            "2.4703282292062327e-324".to_string(),
            "2.4703282292062328e-324".to_string(),
            "0.0000024703282292062327209e-318".to_string(),
        ];
        for k in 2..=20 {
            texts.push(format!("{}.{}e-324", &p20[..1], &p20[1..k])); // prefixes: below
        }
        let mut up = p20.as_bytes().to_vec();
        *up.last_mut().unwrap() += 1; // the 20-digit prefix plus one unit: above
        texts.push(format!(
            "{}.{}e-324",
            up[0] as char,
            core::str::from_utf8(&up[1..]).unwrap()
        ));
        for text in &texts {
            let want = text.parse::<f64>().unwrap() == 0.0;
            let got = Dec::parse(text.as_bytes()).unwrap().rounds_to_zero_f64();
            assert_eq!(got, want, "{text}");
        }
        // Past 20 digits with the limit's first 20: taken as not rounding to
        // zero (2^-1075 itself does, a tie to even), and too precise for a
        // multipleOf, which registration then refuses for its digit count.
        for text in [
            format!("{}.{}e-324", &t[..1], &t[1..]),
            format!("{}.{}1e-324", &t[..1], &t[1..]),
        ] {
            let d = Dec::parse(text.as_bytes()).unwrap();
            assert!(!d.rounds_to_zero_f64(), "{text}");
            assert!(d.significant_digits() > crate::limits::MCP_MAX_MULTIPLE_OF_DIGITS as usize);
        }
    }

    #[test]
    fn range_check_matches_std_at_the_overflow_boundary() {
        // 2^970 × (2^54 - 1) by doubling decimal digits (least significant first).
        let mut digits: Vec<u32> = ((1u64 << 54) - 1)
            .to_string()
            .bytes()
            .rev()
            .map(|b| u32::from(b - b'0'))
            .collect();
        for _ in 0..970 {
            let mut carry = 0;
            for d in digits.iter_mut() {
                let v = *d * 2 + carry;
                (*d, carry) = (v % 10, v / 10);
            }
            if carry != 0 {
                digits.push(carry);
            }
        }
        let t: String = digits
            .iter()
            .rev()
            .map(|d| char::from(b'0' + *d as u8))
            .collect();
        assert_eq!(core::str::from_utf8(F64_OVERFLOW).unwrap(), t);
        let t = t.as_str();
        let below = format!("{}1", &t[..308]); // t - 1
        let above = format!("{}3", &t[..308]); // t + 1
        let point = format!("{}.{}e308", &t[..1], &t[1..]); // t as 1.797...e308
        let mut texts = vec![
            t.to_string(),
            below.clone(),
            above,
            format!("{t}.0"),
            format!("{below}.999999999999999999999999"),
            format!("{t}.0000000000000000001"),
            point.clone(),
            format!("{point}1"),
            format!("{}e308", &point[..point.len() - 6]),
            "1.7976931348623157e308".into(),
            "1.7976931348623158e308".into(),
            "1.797693134862315808e308".into(),
            "1.7976931348623159e308".into(),
            "1.8e308".into(),
            "9e308".into(),
            "0.9e309".into(),
            "1e309".into(),
            "1e308".into(),
            "179.76931348623158e306".into(),
            "0.0000017976931348623158079e314".into(),
            "1e-400".into(),
            "0".into(),
        ];
        let negated: Vec<String> = texts.iter().map(|t| format!("-{t}")).collect();
        texts.extend(negated);
        for text in &texts {
            let want = text.parse::<f64>().unwrap().is_finite();
            let got = Dec::parse(text.as_bytes()).unwrap().is_finite_f64();
            assert_eq!(got, want, "{text}");
        }
    }

    #[test]
    fn classifies_on_bits_like_core() {
        let vals = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.0000000000000002,
            0.9999999999999999,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
        ];
        for v in vals {
            assert_eq!(is_finite(v), v.is_finite(), "{v:?}");
            assert_eq!(is_nan(v), v.is_nan(), "{v:?}");
            assert_eq!(is_non_negative(v), v >= 0.0, "{v:?}");
            assert_eq!(is_above_one(v), v > 1.0, "{v:?}");
        }
    }

    #[test]
    fn formats_like_debug() {
        for (v, s) in [
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (2.0, "2.0"),
            (0.1, "0.1"),
            (0.5, "0.5"),
            (-273.15, "-273.15"),
            (23.4, "23.4"),
            (1e16, "1e16"),
            (1e15, "1000000000000000.0"),
            (1.5e-7, "1.5e-7"),
            (0.0001, "0.0001"),
            (0.00001, "1e-5"),
            (f64::MAX, "1.7976931348623157e308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (1.0 / 3.0, "0.3333333333333333"),
            (100.0, "100.0"),
            (123456.789, "123456.789"),
        ] {
            assert_eq!(fmt(v), s);
            assert_eq!(fmt(v), format!("{v:?}"));
        }
        assert_eq!(fmt(f64::NAN), "");
        assert_eq!(fmt(f64::INFINITY), "");
        assert_eq!(fmt(f64::NEG_INFINITY), "");
    }

    #[test]
    fn format_round_trips() {
        let mut rng = Rng(12345);
        let (mut n, mut longer) = (0u64, 0u64);
        for i in 0..300_000u32 {
            let v = match i % 3 {
                0 => f64::from_bits(rng.next()),
                // Short decimals at any magnitude.
                1 => format!(
                    "{}e{}",
                    rng.next() % 100_000,
                    (rng.next() % 640) as i64 - 320
                )
                .parse()
                .unwrap(),
                // Sensor-like values.
                _ => (rng.next() % 2_000_000) as f64 / 100.0 - 10_000.0,
            };
            if !v.is_finite() {
                continue;
            }
            let s = fmt(v);
            let back: f64 = s.parse().unwrap();
            assert_eq!(back.to_bits(), v.to_bits(), "{v:?} written as {s}");
            n += 1;
            let debug = format!("{v:?}");
            if s != debug {
                // Only ever a 17-digit form where core found a shorter one
                // (or another 17-digit one), never another shape.
                assert!(s.len() >= debug.len(), "{s} vs {debug}");
                longer += 1;
            }
        }
        // The shortest form almost always (measured: 0.7 %, nearly all at
        // magnitudes beyond 1e±27, where the check of a shorter form is
        // inexact and sometimes too close to call).
        assert!(
            longer * 1000 <= n * 15,
            "{longer} of {n} longer than core's"
        );
        println!("format: {n} values, {longer} longer than core's shortest");
    }

    #[test]
    fn decimals_without_floating_point() {
        let d = |t: &str| Dec::parse(t.as_bytes()).unwrap().to_decimal();
        assert_eq!(d("0"), (0, 0));
        assert_eq!(d("-2.5"), (-25, -1));
        assert_eq!(d("21.50"), (215, -1));
        assert_eq!(d("100"), (100, 0));
        assert_eq!(d("1e2"), (100, 0));
        assert_eq!(d("1.5e-3"), (15, -4));
        assert_eq!(d("9223372036854775807"), (922337203685477581, 1));
        assert_eq!(d("1e300"), (1_000_000_000_000_000_000, 282));
        assert_eq!(d("0.1234567890123456789"), (123456789012345679, -18));
        assert_eq!(d("-1e-400"), (-1, -400));
    }
}
