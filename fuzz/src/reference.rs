//! A JSON Schema validator for the keyword subset emcp supports, written
//! apart from emcp (over `tree`, serde_json's reader, numbers as exact
//! decimals of their text), with the project's number rules: a number beyond
//! f64's range is refused wherever a schema constrains it, an integer beyond
//! i64 is refused where only integers are allowed, and an integer is any
//! number without a fraction (`5.0`, `5e0`). Verdicts only, no messages.
//!
//! For schemas written plainly: no duplicate keys, no escaped keywords.

use crate::tree::{self, J};
use serde_json::value::RawValue;
use std::cmp::Ordering;

/// An exact decimal: `-`?, digits without leading or trailing zeros (empty
/// for zero), and the exponent of the last digit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Num {
    neg: bool,
    digits: Vec<u8>,
    exp: i64,
}

impl Num {
    /// Reads a JSON number's text.
    pub fn parse(t: &str) -> Option<Num> {
        let (neg, t) = match t.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, t),
        };
        let (mant, e) = match t.find(['e', 'E']) {
            Some(i) => (
                &t[..i],
                t[i + 1..]
                    .parse::<i64>()
                    .unwrap_or(if t[i + 1..].starts_with('-') {
                        i64::MIN / 4
                    } else {
                        i64::MAX / 4
                    }),
            ),
            None => (t, 0),
        };
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        let mut digits: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
        let mut exp = e.saturating_sub(frac.len() as i64);
        while digits.first() == Some(&0) {
            digits.remove(0);
        }
        while digits.last() == Some(&0) {
            digits.pop();
            exp = exp.saturating_add(1);
        }
        if digits.is_empty() {
            return Some(Num {
                neg: false,
                digits,
                exp: 0,
            });
        }
        Some(Num { neg, digits, exp })
    }

    fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// No fractional part.
    pub fn is_integer(&self) -> bool {
        self.is_zero() || self.exp >= 0
    }

    /// Within i64.
    fn fits_i64(&self) -> bool {
        let lo = Num::parse("-9223372036854775808").unwrap();
        let hi = Num::parse("9223372036854775807").unwrap();
        self.cmp(&lo) != Ordering::Less && self.cmp(&hi) != Ordering::Greater
    }

    /// Finite as an f64 (what the core calls within range).
    fn finite(&self, text: &str) -> bool {
        text.parse::<f64>().is_ok_and(f64::is_finite)
    }

    fn cmp_mag(&self, o: &Num) -> Ordering {
        match (self.is_zero(), o.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        // Order of magnitude of the leading digit, then the digits.
        let ma = self.exp + self.digits.len() as i64;
        let mb = o.exp + o.digits.len() as i64;
        ma.cmp(&mb).then_with(|| {
            let n = self.digits.len().max(o.digits.len());
            let at = |d: &Vec<u8>, i: usize| d.get(i).copied().unwrap_or(0);
            (0..n)
                .map(|i| at(&self.digits, i).cmp(&at(&o.digits, i)))
                .find(|c| c.is_ne())
                .unwrap_or(Ordering::Equal)
        })
    }

    /// `self / m` is an integer (`m` nonzero).
    fn multiple_of(&self, m: &Num) -> bool {
        if self.is_zero() {
            return true;
        }
        if self.exp < m.exp {
            return false; // self's last digit is finer than m's
        }
        let b = m.digits.iter().fold(0u128, |v, &d| v * 10 + u128::from(d));
        let mut r = self
            .digits
            .iter()
            .fold(0u128, |r, &d| (r * 10 + u128::from(d)) % b);
        for _ in 0..(self.exp - m.exp) {
            r = r * 10 % b;
        }
        r == 0
    }
}

impl PartialOrd for Num {
    fn partial_cmp(&self, o: &Num) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Num {
    fn cmp(&self, o: &Num) -> Ordering {
        match (self.neg, o.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_mag(o),
            (true, true) => o.cmp_mag(self),
        }
    }
}

fn kw<'a>(s: &[(String, &'a RawValue)], k: &str) -> Option<&'a RawValue> {
    tree::first(s, k)
}

fn num_of(raw: &RawValue) -> Option<Num> {
    match tree::open(raw)? {
        J::Num(t) => Num::parse(t),
        _ => None,
    }
}

/// Scalar equality for `enum` and `const`.
fn same(a: &RawValue, b: &RawValue) -> bool {
    match (tree::open(a), tree::open(b)) {
        (Some(J::Str(x)), Some(J::Str(y))) => x == y,
        (Some(J::Num(x)), Some(J::Num(y))) => Num::parse(x) == Num::parse(y),
        (Some(J::Bool(x)), Some(J::Bool(y))) => x == y,
        (Some(J::Null), Some(J::Null)) => true,
        _ => false,
    }
}

/// Whether `v` meets the schema `s`.
pub fn valid(s: &RawValue, v: &RawValue) -> bool {
    let Some(s) = tree::members(s) else {
        return true; // not an object schema: no constraints
    };
    let j = match tree::open(v) {
        Some(j) => j,
        None => return false,
    };
    let types: Vec<String> = match kw(&s, "type").and_then(tree::open) {
        Some(J::Str(t)) => vec![t],
        Some(J::Arr(a)) => a.iter().filter_map(|e| tree::string(e)).collect(),
        _ => vec![],
    };
    let allows = |t: &str| types.iter().any(|x| x == t);
    let n = match &j {
        J::Num(t) => {
            let n = Num::parse(t).expect("a JSON number");
            if !n.finite(t) {
                return false;
            }
            if allows("integer") && !allows("number") && n.is_integer() && !n.fits_i64() {
                return false;
            }
            Some(n)
        }
        _ => None,
    };
    if !types.is_empty() {
        let ok = match &j {
            J::Obj(_) => allows("object"),
            J::Arr(_) => allows("array"),
            J::Str(_) => allows("string"),
            J::Bool(_) => allows("boolean"),
            J::Null => allows("null"),
            J::Num(_) => {
                allows("number") || (allows("integer") && n.as_ref().unwrap().is_integer())
            }
        };
        if !ok {
            return false;
        }
    }
    if let Some(n) = &n {
        for (k, keep) in [
            ("minimum", [Ordering::Greater, Ordering::Equal]),
            ("maximum", [Ordering::Less, Ordering::Equal]),
            ("exclusiveMinimum", [Ordering::Greater, Ordering::Greater]),
            ("exclusiveMaximum", [Ordering::Less, Ordering::Less]),
        ] {
            if let Some(b) = kw(&s, k).and_then(num_of) {
                if !keep.contains(&n.cmp(&b)) {
                    return false;
                }
            }
        }
        if let Some(m) = kw(&s, "multipleOf").and_then(num_of) {
            if !n.multiple_of(&m) {
                return false;
            }
        }
    }
    let count = |k: &str| {
        kw(&s, k).and_then(num_of).map(|n| {
            n.digits.iter().fold(0u64, |v, &d| v * 10 + u64::from(d))
                * 10u64.pow(n.exp.max(0) as u32)
        })
    };
    if let J::Str(t) = &j {
        let len = t.chars().count() as u64;
        if count("minLength").is_some_and(|m| len < m)
            || count("maxLength").is_some_and(|m| len > m)
        {
            return false;
        }
    }
    if let Some(e) = kw(&s, "enum") {
        let Some(J::Arr(members)) = tree::open(e) else {
            return false;
        };
        if !members.iter().any(|m| same(v, m)) {
            return false;
        }
    }
    if let Some(c) = kw(&s, "const") {
        if !same(v, c) {
            return false;
        }
    }
    match j {
        J::Arr(items) => {
            let len = items.len() as u64;
            if count("minItems").is_some_and(|m| len < m)
                || count("maxItems").is_some_and(|m| len > m)
            {
                return false;
            }
            match kw(&s, "items") {
                Some(is) => items.iter().all(|e| valid(is, e)),
                None => true,
            }
        }
        J::Obj(members) => {
            let props = kw(&s, "properties")
                .and_then(tree::members)
                .unwrap_or_default();
            let closed = kw(&s, "additionalProperties").is_some_and(|a| tree::text(a) == "false");
            if let Some(J::Arr(req)) = kw(&s, "required").and_then(tree::open) {
                for r in req {
                    let r = tree::string(r).unwrap_or_default();
                    if !members.iter().any(|(k, _)| *k == r) {
                        return false;
                    }
                }
            }
            members.iter().all(|(k, mv)| match tree::first(&props, k) {
                Some(ps) => valid(ps, mv),
                None => !closed,
            })
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> &RawValue {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn numbers_compare_exactly() {
        let n = |s: &str| Num::parse(s).unwrap();
        assert_eq!(n("1.0"), n("1"));
        assert_eq!(n("-0"), n("0e5"));
        assert!(n("100.00000000000000000001") > n("100"));
        assert!(n("-2.5") < n("-2"));
        assert!(n("1e2") == n("100"));
        assert!(n("0.75").multiple_of(&n("0.25")));
        assert!(!n("0.3").multiple_of(&n("0.25")));
        assert!(n("1e20").multiple_of(&n("7e0")) == (100_000_000_000_000_000_000u128 % 7 == 0));
        assert!(n("5.0").is_integer() && !n("5.5").is_integer());
    }

    #[test]
    fn verdicts() {
        let s = raw(
            r#"{"type":"object","required":["p"],"additionalProperties":false,
            "properties":{"p":{"type":"integer","minimum":0,"maximum":100},
            "e":{"type":"string","enum":["a","b"]},"l":{"type":"array","maxItems":1,"items":{"type":"boolean"}}}}"#,
        );
        for (args, ok) in [
            (r#"{"p":1}"#, true),
            (r#"{"p":100.0}"#, true),
            (r#"{"p":100.5}"#, false),
            (r#"{"p":101}"#, false),
            (r#"{}"#, false),
            (r#"{"p":1,"x":1}"#, false),
            (r#"{"p":1,"e":"b"}"#, true),
            (r#"{"p":1,"e":"c"}"#, false),
            (r#"{"p":1,"l":[true]}"#, true),
            (r#"{"p":1,"l":[1]}"#, false),
            (r#"{"p":1,"l":[true,false]}"#, false),
            (r#"{"p":1e400}"#, false),
            (r#"[]"#, false),
        ] {
            assert_eq!(valid(s, raw(args)), ok, "{args}");
        }
    }
}
