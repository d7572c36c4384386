//! JSONTestSuite (tests/data/JSONTestSuite, 318 files) against the tokenizer and the server.
//!
//! How to run each check (from the repository root):
//! - tokenizer verdicts (y_ accepted, n_ rejected, i_ answered): `cargo test --features std --test json_test_suite tokenizer`
//! - server answers one JSON value per file (-32600/-32700):     `cargo test --features std --test json_test_suite server`
//! - both, with the per-file listing:                             `cargo test --features std --test json_test_suite -- --nocapture`
//!
//! Every file runs on its own thread with a time limit, so a panic or a hang
//! is reported with the file's name instead of stopping the run.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use emcp::call::RequestInfo;
use emcp::json::{Token, TokenizeError, tokenize};
use emcp::limits::{
    MCP_MAX_DEPTH, MCP_MAX_JSON_TOKENS, MCP_MIN_RESPONSE_CAP, MCP_RPC_INVALID_REQUEST,
    MCP_RPC_PARSE_ERROR,
};
use emcp::server::{Outcome, Server, ServerInfo};
use serde_json::Value;

/// Files in JSONTestSuite's test_parsing directory at the pinned commit.
const SUITE_FILES: usize = 318;
/// Token array for the tokenizer run: far more than any y_ file needs.
const TOKENS: usize = 4096;
/// Longest time one file may take before it counts as a hang.
const TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// y_: must be accepted.
    Accept,
    /// n_: must be rejected.
    Reject,
    /// i_: implementation-defined; must only be answered.
    Either,
}

struct Case {
    name: String,
    bytes: Vec<u8>,
    expect: Expect,
}

fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/JSONTestSuite/test_parsing")
}

/// All suite files, sorted by name; panics unless there are exactly `SUITE_FILES`.
fn cases() -> Vec<Case> {
    let dir = suite_dir();
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        let name = path
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        let expect = match name.get(..2) {
            Some("y_") => Expect::Accept,
            Some("n_") => Expect::Reject,
            Some("i_") => Expect::Either,
            _ => panic!("unexpected file in the suite: {name}"),
        };
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push(Case {
            name,
            bytes,
            expect,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        out.len(),
        SUITE_FILES,
        "expected {SUITE_FILES} files in {}",
        dir.display()
    );
    out
}

/// Runs `f` on its own thread; a panic or a run longer than `TIMEOUT` becomes
/// an `Err` describing it (a hung thread is left behind, the test goes on).
fn guarded<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    let (tx, rx) = mpsc::channel();
    let handle = thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| format!("cannot spawn a thread: {e}"))?;
    match rx.recv_timeout(TIMEOUT) {
        Ok(v) => {
            let _ = handle.join();
            Ok(v)
        }
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("no answer within {TIMEOUT:?} (hang)")),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err("panicked".to_string()),
    }
}

/// The tokenizer's verdict on one file, with the checks made on an accepted text.
#[derive(Debug)]
enum Verdict {
    Accepted(usize),
    Rejected(TokenizeError),
    /// Accepted, but the token array breaks an invariant.
    Inconsistent(String),
}

fn tokenizer_verdict(bytes: Vec<u8>) -> Verdict {
    let mut toks = vec![Token::EMPTY; TOKENS];
    match tokenize(&bytes, &mut toks, MCP_MAX_DEPTH) {
        Err(e) => Verdict::Rejected(e),
        Ok(n) => {
            // The sizing pass (no token array) must agree with the real one.
            let sized = tokenize(&bytes, &mut [], MCP_MAX_DEPTH);
            if sized != Ok(n) {
                return Verdict::Inconsistent(format!(
                    "sizing pass gave {sized:?}, real pass Ok({n})"
                ));
            }
            let Some(root) = toks.first() else {
                return Verdict::Inconsistent("no token array".into());
            };
            if n == 0 || usize::from(root.next) != n {
                return Verdict::Inconsistent(format!(
                    "{n} tokens but the root's subtree ends at {}",
                    root.next
                ));
            }
            for (i, t) in toks.iter().take(n).enumerate() {
                if t.start > t.end
                    || t.end as usize > bytes.len()
                    || usize::from(t.next) <= i
                    || usize::from(t.next) > n
                {
                    return Verdict::Inconsistent(format!("token {i} is malformed: {t:?}"));
                }
            }
            Verdict::Accepted(n)
        }
    }
}

#[test]
fn tokenizer_verdicts_on_every_file() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut limited = Vec::new();
    let mut informative = Vec::new();
    let (mut accepted, mut rejected) = (0usize, 0usize);

    for case in cases {
        let bytes = case.bytes.clone();
        let verdict = match guarded(move || tokenizer_verdict(bytes)) {
            Ok(v) => v,
            Err(why) => {
                failures.push(format!("{}: tokenizer {why}", case.name));
                continue;
            }
        };
        match (&verdict, case.expect) {
            (Verdict::Inconsistent(why), _) => failures.push(format!("{}: {why}", case.name)),
            (Verdict::Accepted(_), Expect::Accept)
            | (Verdict::Rejected(TokenizeError::Invalid), Expect::Reject) => {}
            (
                Verdict::Rejected(e @ (TokenizeError::TooDeep | TokenizeError::TooManyTokens)),
                Expect::Accept,
            ) => {
                // A valid text refused by a limit is reported, never skipped.
                failures.push(format!(
                    "{}: valid JSON refused by a limit ({e:?}; depth {MCP_MAX_DEPTH}, {TOKENS} tokens)",
                    case.name
                ));
            }
            (Verdict::Rejected(e), Expect::Accept) => {
                failures.push(format!("{}: valid JSON rejected ({e:?})", case.name))
            }
            (Verdict::Accepted(n), Expect::Reject) => {
                failures.push(format!("{}: invalid JSON accepted ({n} tokens)", case.name))
            }
            (Verdict::Rejected(e), Expect::Reject) => {
                // Rejected, as required, but by a limit before the error was seen.
                limited.push(format!("{} ({e:?})", case.name));
            }
            (v, Expect::Either) => informative.push(format!("{}: {v:?}", case.name)),
        }
        match verdict {
            Verdict::Accepted(_) => accepted += 1,
            Verdict::Rejected(_) => rejected += 1,
            Verdict::Inconsistent(_) => {}
        }
    }

    println!("i_ files (implementation-defined), tokenizer's answer:");
    for line in &informative {
        println!("  {line}");
    }
    println!(
        "n_ files rejected by a limit (depth {MCP_MAX_DEPTH} / {TOKENS} tokens) rather than as invalid:"
    );
    for line in &limited {
        println!("  {line}");
    }
    println!(
        "tokenizer: {SUITE_FILES} files, {accepted} accepted, {rejected} rejected, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "JSONTestSuite tokenizer failures:\n  {}",
        failures.join("\n  ")
    );
}

/// What the server answered, with the tokenizer's verdict at the server's own limits.
struct Answer {
    outcome: Outcome,
    body: Vec<u8>,
    at_server_limits: Result<usize, TokenizeError>,
}

fn server_answer(bytes: Vec<u8>, cap: usize) -> Result<Answer, String> {
    let info = ServerInfo {
        name: "json-test-suite",
        version: "1.0",
        title: None,
        instructions: None,
        list_ttl_ms: 0,
        cache_public: false,
    };
    let server = Server::new(info);
    let mut out = vec![0u8; cap];
    let outcome = server
        .handle(&RequestInfo::default(), &bytes, &mut out)
        .map_err(|e| format!("handle refused a {cap}-byte buffer: {e:?}"))?;
    let body = out
        .get(..outcome.len)
        .ok_or("response length past the buffer")?
        .to_vec();
    let mut toks = [Token::EMPTY; MCP_MAX_JSON_TOKENS];
    let at_server_limits = tokenize(&bytes, &mut toks, MCP_MAX_DEPTH);
    Ok(Answer {
        outcome,
        body,
        at_server_limits,
    })
}

/// The id a response may echo: the request's top-level `id` when the request is
/// a JSON object whose `id` is a string or a number (JSON-RPC answers an
/// invalid request with its id when the id can be read), else only null.
fn echoable_id(request: &[u8]) -> Option<Value> {
    let v: Value = serde_json::from_slice(request).ok()?;
    v.get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned()
}

/// Checks that `a` is exactly one JSON-RPC error response whose id is null or
/// the request's own id, and returns its code.
fn error_code(a: &Answer, request: &[u8]) -> Result<i64, String> {
    if a.outcome.len == 0 {
        return Err("no response (treated as a notification)".into());
    }
    let v: Value = serde_json::from_slice(&a.body).map_err(|e| {
        format!(
            "response is not one JSON value ({e}): {}",
            String::from_utf8_lossy(&a.body)
        )
    })?;
    let text = String::from_utf8_lossy(&a.body);
    if v.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(format!("no \"jsonrpc\":\"2.0\": {text}"));
    }
    match (v.get("id"), echoable_id(request)) {
        (Some(Value::Null), _) => {}
        (Some(id), Some(req_id)) if *id == req_id => {}
        _ => return Err(format!("id is neither null nor the request's id: {text}")),
    }
    if v.get("result").is_some() {
        return Err(format!("a result for a non-request: {text}"));
    }
    let err = v
        .get("error")
        .ok_or_else(|| format!("no error member: {text}"))?;
    if !err.get("message").is_some_and(Value::is_string) {
        return Err(format!("error without a string message: {text}"));
    }
    let code = err
        .get("code")
        .and_then(Value::as_i64)
        .ok_or_else(|| format!("error without an integer code: {text}"))?;
    if code != i64::from(a.outcome.rpc_error) {
        return Err(format!(
            "body code {code} but Outcome.rpc_error {}",
            a.outcome.rpc_error
        ));
    }
    if a.outcome.http_status != 400 {
        return Err(format!(
            "HTTP status {} for error {code}",
            a.outcome.http_status
        ));
    }
    Ok(code)
}

/// Runs every file through `Server::handle` with a `cap`-byte response buffer.
fn server_run(cap: usize) {
    let cases = cases();
    let mut failures = Vec::new();
    let mut y_limited = Vec::new();
    let mut n_limited = Vec::new();
    let (mut parse_errors, mut invalid_requests) = (0usize, 0usize);
    let parse = i64::from(MCP_RPC_PARSE_ERROR);
    let invalid = i64::from(MCP_RPC_INVALID_REQUEST);

    for case in cases {
        let bytes = case.bytes.clone();
        let answer = match guarded(move || server_answer(bytes, cap)) {
            Ok(Ok(a)) => a,
            Ok(Err(why)) | Err(why) => {
                failures.push(format!("{}: server {why}", case.name));
                continue;
            }
        };
        let code = match error_code(&answer, &case.bytes) {
            Ok(c) => c,
            Err(why) => {
                failures.push(format!("{}: {why}", case.name));
                continue;
            }
        };
        let limit = matches!(
            answer.at_server_limits,
            Err(TokenizeError::TooDeep | TokenizeError::TooManyTokens)
        );
        match code {
            c if c == parse => parse_errors += 1,
            c if c == invalid => invalid_requests += 1,
            _ => {}
        }
        match case.expect {
            // Valid JSON but never a JSON-RPC request object (arrays are
            // batches, scalars and objects lack "jsonrpc"/"method"): -32600.
            // A parse error here would call valid JSON invalid.
            Expect::Accept => {
                if code != invalid {
                    failures.push(format!(
                        "{}: valid JSON answered {code}, expected {invalid}",
                        case.name
                    ));
                } else if limit {
                    y_limited.push(format!("{} ({:?})", case.name, answer.at_server_limits));
                }
            }
            // Invalid JSON: -32700, or -32600 only when a server limit
            // (MCP_MAX_DEPTH, MCP_MAX_JSON_TOKENS) stopped the tokenizer first.
            Expect::Reject => {
                if code == invalid && limit {
                    n_limited.push(format!("{} ({:?})", case.name, answer.at_server_limits));
                } else if code != parse {
                    failures.push(format!(
                        "{}: invalid JSON answered {code} (tokenizer at server limits: {:?})",
                        case.name, answer.at_server_limits
                    ));
                }
            }
            Expect::Either => {
                if code != parse && code != invalid {
                    failures.push(format!(
                        "{}: answered {code}, expected {parse} or {invalid}",
                        case.name
                    ));
                }
            }
        }
    }

    println!(
        "y_ files refused by a server limit (MCP_MAX_DEPTH {MCP_MAX_DEPTH}, MCP_MAX_JSON_TOKENS {MCP_MAX_JSON_TOKENS}), answered -32600 for that reason:"
    );
    if y_limited.is_empty() {
        println!("  none");
    }
    for line in &y_limited {
        println!("  {line}");
    }
    println!("n_ files answered -32600 because a server limit was hit first:");
    for line in &n_limited {
        println!("  {line}");
    }
    println!(
        "server ({cap}-byte buffer): {SUITE_FILES} files, {parse_errors} x -32700, {invalid_requests} x -32600, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "JSONTestSuite server failures ({cap}-byte buffer):\n  {}",
        failures.join("\n  ")
    );
}

#[test]
fn server_answers_every_file_with_one_json_value() {
    server_run(4096);
}

#[test]
fn server_answers_every_file_within_the_minimum_buffer() {
    server_run(MCP_MIN_RESPONSE_CAP);
}
