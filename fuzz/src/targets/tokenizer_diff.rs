//! emcp::json::tokenize against serde_json: the same accept/reject decision
//! on every input within the token and depth limits passed, the same number
//! of tokens (every value and every key), and well-formed spans.
//!
//! Intended difference: numbers beyond f64's range (`1e400`) are valid JSON
//! text (RFC 8259 sets no limit), so emcp's tokenizer accepts them and the
//! schema layer refuses them later; serde_json (without
//! `arbitrary_precision`) refuses them while parsing. Such inputs count as
//! agreement when serde_json's error is "number out of range".
use crate::tree;
use emcp::json::{check_finding, name_is, tokenize, Doc, Kind, Token, TokenizeError};

/// Token array size and depth passed to tokenize: generous, so that the
/// limits rarely decide (inputs beyond them are skipped, not compared).
const TOKENS: usize = 512;
const DEPTH: usize = 64;

/// One fuzz input.
pub fn run(data: &[u8]) {
    let mut toks = vec![Token::EMPTY; TOKENS];
    let ours = tokenize(data, &mut toks, DEPTH);
    // The counting pass (no token storage) decides the same way.
    let counted = tokenize(data, &mut [], DEPTH);
    match (&ours, &counted) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "counting pass disagrees"),
        (Err(TokenizeError::TooManyTokens), Ok(n)) => assert!(*n > TOKENS),
        // Documented: TooManyTokens means "valid so far"; the counting pass
        // reads on and may find the text invalid (or too deep) further on.
        // Hence a message with more than MCP_MAX_JSON_TOKENS tokens before
        // its syntax error is answered -32600, not -32700.
        (
            Err(TokenizeError::TooManyTokens),
            Err(TokenizeError::Invalid | TokenizeError::TooDeep),
        ) => {}
        (a, b) => assert_eq!(a, b, "counting pass disagrees"),
    }
    // Deterministic.
    let mut again = vec![Token::EMPTY; TOKENS];
    assert_eq!(ours, tokenize(data, &mut again, DEPTH));
    assert_eq!(toks, again);

    let theirs = serde_json::from_slice::<serde_json::Value>(data);
    match ours {
        Ok(n) => {
            if let Err(e) = &theirs {
                assert!(
                    e.to_string().starts_with("number out of range"),
                    "emcp accepts, serde_json refuses ({e}): {:?}",
                    String::from_utf8_lossy(data)
                );
            }
            let top = tree::top(data).expect("serde_json reads the spans");
            let (count, depth) = tree::tokens_and_depth(top).expect("every level parses");
            assert_eq!(
                n,
                count,
                "token count differs: {:?}",
                String::from_utf8_lossy(data)
            );
            assert!(depth <= DEPTH);
            check_tokens(data, &toks[..n]);
            check_doc(data, &toks[..n]);
            check_finding_agrees(data);
        }
        Err(TokenizeError::Invalid) => {
            assert!(
                theirs.is_err(),
                "emcp refuses, serde_json accepts: {:?}",
                String::from_utf8_lossy(data)
            );
        }
        Err(TokenizeError::TooManyTokens) | Err(TokenizeError::TooDeep) => {
            // Beyond the limits passed: serde_json may accept (it does when
            // the nesting is within its own 128). If it accepts, the limit
            // really is exceeded.
            if theirs.is_ok() {
                let top = tree::top(data).expect("accepted");
                if let Some((count, depth)) = tree::tokens_and_depth(top) {
                    assert!(
                        count > TOKENS || depth > DEPTH,
                        "emcp says {ours:?} for {count} tokens, depth {depth}"
                    );
                }
            }
        }
        Err(TokenizeError::TooLong) => unreachable!("fuzz inputs are small"),
    }
}

/// Spans lie inside the input, in order; strings are quoted; numbers and
/// literals are what their kind says; `next` skips exactly the subtree.
fn check_tokens(src: &[u8], toks: &[Token]) {
    let mut prev_start = 0u32;
    for (i, t) in toks.iter().enumerate() {
        assert!(t.start < t.end && t.end as usize <= src.len(), "span {t:?}");
        assert!(t.start >= prev_start, "tokens out of order");
        prev_start = t.start;
        let raw = &src[t.start as usize..t.end as usize];
        let next = usize::from(t.next);
        match t.kind {
            Kind::Object | Kind::Array => {
                assert!(next > i && next <= toks.len(), "next {next} at {i}");
                let (o, c) = if t.kind == Kind::Object {
                    (b'{', b'}')
                } else {
                    (b'[', b']')
                };
                assert_eq!((raw[0], raw[raw.len() - 1]), (o, c));
                for child in &toks[i + 1..next] {
                    assert!(
                        child.start > t.start && child.end < t.end,
                        "child outside parent"
                    );
                }
            }
            Kind::String => {
                assert!(raw.len() >= 2 && raw[0] == b'"' && raw[raw.len() - 1] == b'"');
                assert_eq!(t.escaped, raw.contains(&b'\\'), "escaped flag");
                let s: String =
                    serde_json::from_slice(raw).expect("a string token is a JSON string");
                let _ = s;
            }
            Kind::Number => {
                let s = std::str::from_utf8(raw).expect("ascii");
                assert!(
                    s.bytes().all(|b| b"0123456789+-.eE".contains(&b)),
                    "number {s}"
                );
                assert!(s.parse::<f64>().is_ok(), "number {s}");
            }
            Kind::True => assert_eq!(raw, b"true"),
            Kind::False => assert_eq!(raw, b"false"),
            Kind::Null => assert_eq!(raw, b"null"),
        }
        if !matches!(t.kind, Kind::Object | Kind::Array) {
            assert_eq!(next, i + 1, "scalar next");
        }
    }
}

/// `Doc` reads the checked text without tokens: walking it from the root
/// (members, elements, value ends, kinds) visits exactly the tokens the
/// storing tokenizer made, in order, with the same spans.
fn check_doc(src: &[u8], toks: &[Token]) {
    let doc = Doc::new(src);
    let mut at = 0usize;
    walk(&doc, doc.root(), toks, &mut at);
    assert_eq!(at, toks.len(), "Doc visited {at} of {} tokens", toks.len());
}

fn walk(doc: &Doc<'_>, i: usize, toks: &[Token], at: &mut usize) {
    let t = toks[*at];
    assert_eq!(
        (i, doc.skip(i), doc.kind(i)),
        (t.start as usize, t.end as usize, Some(t.kind)),
        "value {} differs",
        *at
    );
    if t.kind == Kind::String {
        assert_eq!(doc.escaped(i), t.escaped, "escaped flag");
    }
    *at += 1;
    match t.kind {
        Kind::Object => {
            for (k, v) in doc.members(i) {
                walk(doc, k, toks, at);
                walk(doc, v, toks, at);
            }
        }
        Kind::Array => {
            for e in doc.elements(i) {
                walk(doc, e, toks, at);
            }
        }
        _ => {}
    }
    if matches!(t.kind, Kind::Object | Kind::Array) {
        assert_eq!(
            *at,
            usize::from(t.next),
            "subtree of {} ends elsewhere",
            t.start
        );
    }
}

/// Names located by [`check_finding`] in the fuzz target, level after level
/// (the request envelope's shape; each level's last name leads on).
const PATH: [&[&[u8]]; 3] = [
    &[b"id", b"method", b"params"],
    &[b"name", b"a", b"_meta"],
    &[b"v", b"name"],
];

fn finder(level: usize, name: &[u8], escaped: bool) -> Option<(usize, bool)> {
    let names = PATH.get(level.checked_sub(1)?)?;
    let base: usize = PATH[..level - 1].iter().map(|l| l.len()).sum();
    let j = names.iter().position(|n| name_is(name, escaped, n))?;
    Some((base + j, j + 1 == names.len() && level < PATH.len()))
}

/// Members located in the checking pass are those that lookups on the
/// checked text find: the first member of each name, only inside objects
/// the path leads into, with escaped names decoded.
fn check_finding_agrees(data: &[u8]) {
    let mut found = [0u32; 8];
    let n = check_finding(data, DEPTH, finder, &mut found);
    assert!(n.is_ok(), "check_finding refuses what tokenize accepts");
    let doc = Doc::new(data);
    let mut want = [0u32; 8];
    let mut obj = Some(doc.root()).filter(|&r| doc.kind(r) == Some(Kind::Object));
    let mut base = 0;
    for names in PATH {
        let Some(o) = obj else { break };
        let mut out = vec![None; names.len()];
        doc.get_many(o, names, &mut out);
        for (j, v) in out.iter().enumerate() {
            want[base + j] = v.unwrap_or(0);
        }
        obj = out[names.len() - 1]
            .map(|v| v as usize)
            .filter(|&v| doc.kind(v) == Some(Kind::Object));
        base += names.len();
    }
    assert_eq!(
        found,
        want,
        "located members differ: {:?}",
        String::from_utf8_lossy(data)
    );
}
