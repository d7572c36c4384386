//! RFC 6570 level-1 URI templates (`test://item/{id}/data`): checking a
//! template once at registration, and matching a requested URI against it.
//!
//! Owns: the matching rule. A `{var}` expands, at level 1, to characters that
//! are unreserved or percent-encoded, so a variable matches one or more such
//! characters and never a `/`, `?`, `#` or other reserved character; the text
//! between expressions must match exactly. Values are handed out percent-decoded.
//! Must not: allocate, or accept a template that could match ambiguously
//! (two expressions with nothing between them).

use crate::limits::MCP_MAX_TEMPLATE_VARS;

/// One piece of a template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part<'t> {
    Literal(&'t [u8]),
    Var(&'t [u8]),
}

fn parts(t: &[u8]) -> impl Iterator<Item = Part<'_>> {
    let mut rest = t;
    core::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.first() == Some(&b'{') {
            let end = rest.iter().position(|&b| b == b'}')?;
            let name = rest.get(1..end)?;
            rest = rest.get(end + 1..).unwrap_or(&[]);
            return Some(Part::Var(name));
        }
        let end = rest.iter().position(|&b| b == b'{').unwrap_or(rest.len());
        let lit = rest.get(..end)?;
        rest = rest.get(end..).unwrap_or(&[]);
        Some(Part::Literal(lit))
    })
}

/// True when `t` contains at least one `{` (a template, not a plain URI).
pub fn is_template(t: &str) -> bool {
    crate::json::has_byte(t.as_bytes(), b'{')
}

/// Checks a template: balanced braces, variable names of `[A-Za-z0-9_]`,
/// at most `MCP_MAX_TEMPLATE_VARS` of them, no two expressions adjacent, and
/// no operator expressions (`{+x}`, `{?x}`: levels 2 to 4 are not supported).
pub fn valid(t: &str) -> bool {
    let b = t.as_bytes();
    let opens = b.iter().filter(|&&c| c == b'{').count();
    let closes = b.iter().filter(|&&c| c == b'}').count();
    if opens != closes || opens == 0 || opens > MCP_MAX_TEMPLATE_VARS {
        return false;
    }
    let mut prev_var = false;
    let mut seen = 0;
    for p in parts(b) {
        match p {
            Part::Var(name) => {
                let ok = !name.is_empty()
                    && name.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_');
                if !ok || prev_var {
                    return false;
                }
                prev_var = true;
                seen += 1;
            }
            Part::Literal(lit) => {
                if crate::json::has_byte(lit, b'}') {
                    return false;
                }
                prev_var = false;
            }
        }
    }
    seen == opens
}

/// A character a level-1 expansion may produce (unreserved or `%`).
fn value_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~' | b'%')
}

/// Where each variable of `template` lies in `uri`, in template order, or
/// `None` when the URI does not match. Each span is `(start, end)` in `uri`.
pub fn matches(template: &str, uri: &[u8]) -> Option<[(usize, usize); MCP_MAX_TEMPLATE_VARS]> {
    let mut spans = [(0usize, 0usize); MCP_MAX_TEMPLATE_VARS];
    let mut at = 0usize;
    let mut n = 0usize;
    let mut it = parts(template.as_bytes()).peekable();
    while let Some(p) = it.next() {
        match p {
            Part::Literal(lit) => {
                let end = at.checked_add(lit.len())?;
                if uri.get(at..end)? != lit {
                    return None;
                }
                at = end;
            }
            Part::Var(_) => {
                let rest = uri.get(at..)?;
                let run = rest.iter().take_while(|&&c| value_char(c)).count();
                // The value ends where the next literal starts (its first
                // occurrence inside the run of value characters), or at the
                // end of the run.
                let len = match it.peek() {
                    Some(Part::Literal(lit)) => {
                        (1..=run).find(|&k| rest.get(k..).is_some_and(|w| w.starts_with(lit)))?
                    }
                    _ => run,
                };
                if len == 0 {
                    return None;
                }
                *spans.get_mut(n)? = (at, at + len);
                n += 1;
                at += len;
            }
        }
    }
    (at == uri.len()).then_some(spans)
}

/// The span of variable `name` in a match of `template`.
pub fn var_span(
    template: &str,
    spans: &[(usize, usize); MCP_MAX_TEMPLATE_VARS],
    name: &str,
) -> Option<(usize, usize)> {
    let index = parts(template.as_bytes())
        .filter_map(|p| match p {
            Part::Var(v) => Some(v),
            Part::Literal(_) => None,
        })
        .position(|v| v == name.as_bytes())?;
    spans.get(index).copied()
}

/// Percent-decodes `value` into `out`; `None` if it does not fit or a `%`
/// is not followed by two hex digits.
pub fn decode_into(value: &[u8], out: &mut [u8]) -> Option<usize> {
    let hex = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    let mut i = 0;
    let mut n = 0;
    while let Some(&c) = value.get(i) {
        let byte = if c == b'%' {
            let hi = hex(*value.get(i + 1)?)?;
            let lo = hex(*value.get(i + 2)?)?;
            i += 3;
            hi << 4 | lo
        } else {
            i += 1;
            c
        };
        *out.get_mut(n)? = byte;
        n += 1;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(t: &str, uri: &str) -> Option<Vec<String>> {
        let spans = matches(t, uri.as_bytes())?;
        let n = t.matches('{').count();
        Some(
            spans[..n]
                .iter()
                .map(|&(a, b)| uri[a..b].to_string())
                .collect(),
        )
    }

    #[test]
    fn templates_are_checked() {
        for ok in [
            "test://template/{id}/data",
            "a{x}",
            "{x}",
            "g://{a}/{b_2}.json",
        ] {
            assert!(valid(ok), "{ok}");
        }
        for bad in [
            "no vars",
            "a{x",
            "a}x{",
            "a{}b",
            "{a}{b}",
            "{+path}",
            "{?q}",
            "{a-b}",
            "x{a}{b}y",
            "{a}/{b}/{c}/{d}/{e}",
            "a{{x}}",
        ] {
            assert!(!valid(bad), "{bad}");
        }
    }

    #[test]
    fn level_one_matching() {
        let t = "test://template/{id}/data";
        assert_eq!(vars(t, "test://template/123/data").unwrap(), ["123"]);
        assert_eq!(vars(t, "test://template/a%2Fb/data").unwrap(), ["a%2Fb"]);
        for miss in [
            "test://template//data",
            "test://template/1/2/data",
            "test://template/123/dat",
            "test://template/123/data/",
            "test://templat/123/data",
            "",
        ] {
            assert!(vars(t, miss).is_none(), "{miss}");
        }
        // A literal that starts with a value character: the first occurrence ends the value.
        assert_eq!(
            vars("x://{a}data{b}", "x://12data34").unwrap(),
            ["12", "34"]
        );
        assert_eq!(vars("x://{a}.{b}", "x://v1.json").unwrap(), ["v1", "json"]);
        assert!(vars("x://{a}.{b}", "x://v1.").is_none());
        let spans = matches("s://{zone}/{id}", b"s://north/7").unwrap();
        assert_eq!(var_span("s://{zone}/{id}", &spans, "id"), Some((10, 11)));
        assert_eq!(var_span("s://{zone}/{id}", &spans, "nope"), None);
    }

    #[test]
    fn percent_decoding() {
        let mut out = [0u8; 8];
        assert_eq!(decode_into(b"a%2Fb", &mut out), Some(3));
        assert_eq!(&out[..3], b"a/b");
        assert_eq!(decode_into(b"%zz", &mut out), None);
        assert_eq!(decode_into(b"%2", &mut out), None);
        assert_eq!(decode_into(b"123456789", &mut out), None);
    }
}
