//! `tools/list` and `tools/call`, shared by both eras (the era only adds the
//! 2026 members, which the dispatcher writes).

use super::Era;
use super::modern::cache_hints_scoped;
use super::{envelope, mrtr, paging};
use crate::call::{Call, Finished, RequestInfo, ResultOpts, ToolResult};
use crate::dedup::{Attached, Dedup, End, Seen, Ticket};
use crate::json::{Doc, Kind, WriteError, Writer, check};
use crate::limits::*;
use crate::policy::mcp_audit_t;
use crate::policy::mcp_store_t;
#[cfg(feature = "policy")]
use crate::registry::Handler;
#[cfg(feature = "text-tools")]
use crate::registry::Tool;
use crate::registry::{Def, Entry};
use crate::rpc::{Message, Request, RpcError};
use crate::schema::{self, MsgBuf};
#[cfg(feature = "text-tools")]
use crate::schema::{Schema, Violation};
use crate::state::{Fail, Server};

/// The members of a `tools/list` result: the tools in registration order,
/// one page at a time. A page ends after `page_size` tools or when the next
/// tool would not leave room for the rest of the response; `nextCursor` then
/// names where the next page starts.
pub fn list<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    era: Era,
) -> Result<(), Fail<'r>> {
    let first = paging::start(req, s.tools.len())?;
    // Only the enabled tools this principal may call; cursors index the full table.
    let visible = s.tools.iter().enumerate().skip(first).filter(|(i, t)| {
        s.tools.enabled(*i) && (!cfg!(feature = "policy") || s.hooks.allows(t, info.principal))
    });
    paging::write(w, s, req.id, "tools", visible, tool_entry)?;
    if era.is_modern() {
        let public = s.info.cache_public
            && !(cfg!(feature = "policy") && s.hooks.per_principal(s.tools.iter()));
        cache_hints_scoped(w, &s.info, public)?;
    }
    Ok(())
}

/// The writer's errors are sticky (after one, every call is a no-op that
/// reports it), so these straight-line writers ignore each call's result and
/// report the first error once, at the end.
pub(crate) fn tool_entry(w: &mut Writer<'_>, t: &Entry<'_>) -> Result<(), WriteError> {
    match t.def {
        // Built: the entry was written by `emcp-gen` with [`text_entry`].
        Def::Built { listing, .. } => w.raw_value(listing.as_bytes()),
        #[cfg(feature = "text-tools")]
        Def::Text {
            title,
            description,
            input_schema,
            output_schema,
            icons,
        } => crate::registry::text_entry(
            w,
            &Tool {
                title,
                description,
                output_schema,
                icons,
                annotations: t.annotations,
                ..Tool::new(t.name, input_schema, t.handler)
            },
        ),
    }
}

/// Runs a tool and writes its CallToolResult members.
///
/// In two out-of-line steps, [`admit`] (which tool, may it run, are its
/// arguments valid) and [`run_validated`], so that neither's locals are on
/// the stack under the other's deepest part (validation, the callback).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn call<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    era: Era,
    dedup: Option<&Dedup>,
    #[cfg(feature = "policy")] store: Option<Attached<'_, mcp_store_t>>,
) -> Result<(), Fail<'r>> {
    let Some((index, tool, args)) = admit(w, s, req, info, era)? else {
        return Ok(()); // answered: a tool error for invalid arguments
    };
    run_validated(
        w,
        s,
        req,
        info,
        era,
        dedup,
        #[cfg(feature = "policy")]
        store,
        index,
        tool,
        args,
    )
}

/// The tool a call names, if it exists for the principal and its arguments
/// (and parameter headers) pass: `Some((index, tool, arguments))`, or `None`
/// when the answer is written (a tool error for invalid arguments).
#[inline(never)]
#[allow(clippy::type_complexity)]
fn admit<'r, 's, 'a>(
    w: &mut Writer<'_>,
    s: &'s Server<'a>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    era: Era,
) -> Result<Option<(usize, &'s Entry<'a>, Option<usize>)>, Fail<'r>> {
    let doc = req.doc;
    let name = req
        .name()
        .filter(|&n| doc.kind(n) == Some(Kind::String))
        .ok_or(Fail::Rpc(RpcError::new(
            MCP_RPC_INVALID_PARAMS,
            "params.name must be a string",
        )))?;
    let args = match req.arguments() {
        Some(a) if doc.kind(a) != Some(Kind::Object) => {
            return Err(Fail::Rpc(RpcError::new(
                MCP_RPC_INVALID_PARAMS,
                "params.arguments must be an object",
            )));
        }
        a => a,
    };
    let unknown = || {
        Fail::Rpc(RpcError {
            code: MCP_RPC_INVALID_PARAMS,
            message: Message::WithRaw(
                "Unknown tool: ",
                doc.str_inner(name).unwrap_or(&[]),
                crate::rpc::short::UNKNOWN_TOOL,
            ),
            data: crate::rpc::Data::None,
        })
    };
    // The name is read once; a name without escapes compares as bytes (a
    // hosted speed path: bare-metal targets decode every name).
    let raw_name = doc
        .str_inner(name)
        .filter(|n| !cfg!(target_os = "none") && !crate::json::has_byte(n, b'\\'));
    let Some((index, tool)) = s
        .tools
        .position_by(|n| match raw_name {
            Some(raw) => raw == n.as_bytes(),
            None => doc.str_eq(name, n),
        })
        .filter(|(i, _)| s.tools.enabled(*i))
    else {
        return Err(unknown());
    };
    let audit = |outcome| {
        if cfg!(feature = "policy") {
            audit(s, info, tool, req, args, outcome)
        }
    };
    // A tool the principal may not call does not exist for it.
    if cfg!(feature = "policy") && !s.hooks.allows(tool, info.principal) {
        audit(MCP_AUDIT_REFUSED);
        return Err(unknown());
    }
    // Mcp-Param-* headers must mirror their arguments (-32020), as the
    // routing headers mirror the method and name.
    if let Err(e) = envelope::check_params(tool, &doc, args, info) {
        audit(MCP_AUDIT_INVALID_ARGUMENTS);
        return Err(Fail::Rpc(e));
    }
    // No model output reaches the callback without passing the schema:
    // its compiled program when the tool has one, else its text.
    // SEP-1303: a violation is a tool execution error the model reads and
    // corrects, not a JSON-RPC error hosts keep from it. The callback does
    // not run.
    let refused = match tool.def {
        Def::Built { input, .. } => schema::run(input, &doc, args).err().map(Refused::Program),
        #[cfg(feature = "text-tools")]
        Def::Text { input_schema, .. } => {
            let input = Schema::new(input_schema);
            schema::validate(&input, input.root(), &doc, args)
                .err()
                .map(Refused::Text)
        }
    };
    if let Some(v) = refused {
        audit(MCP_AUDIT_INVALID_ARGUMENTS);
        return invalid_arguments(w, era, tool, &doc, v).map(|()| None);
    }
    Ok(Some((index, tool, args)))
}

/// The rest of [`call`] once the arguments passed their schema: the space
/// check, the idempotency key, the rate limit, the run and its records.
/// Out of line, so its locals (the claims, the run's result) are not on the
/// stack while the arguments are validated, the deepest part of a call.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn run_validated<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    req: &Request<'r>,
    info: &RequestInfo<'_>,
    era: Era,
    dedup: Option<&Dedup>,
    #[cfg(feature = "policy")] store: Option<Attached<'_, mcp_store_t>>,
    index: usize,
    tool: &Entry<'_>,
    args: Option<usize>,
) -> Result<(), Fail<'r>> {
    let doc = req.doc;
    let audit = |outcome| {
        if cfg!(feature = "policy") {
            audit(s, info, tool, req, args, outcome)
        }
    };
    // A tool never runs when its answer cannot be delivered (an actuator
    // would move and the client hear that it failed, and retry). Checked
    // before any claim is taken, so there is nothing to give back.
    let tail = call_tail(s, era);
    let needed = w.len() + tail + tool.max_result_len;
    if needed > w.capacity() {
        audit(MCP_AUDIT_NO_SPACE);
        return Err(no_space(w, req.id, needed));
    }
    // A repeated idempotency key gets the original answer; the tool never
    // runs twice (checked before the rate limit: a retry is not a new call).
    // (Without the `policy` feature registration refuses keys and intervals.)
    let key = match tool
        .idempotency_key
        .filter(|_| cfg!(feature = "policy"))
        .map(|k| (k, idempotency_key(&doc, args, k)))
    {
        Some((_, Ok(k))) => k,
        Some((name, Err(()))) => {
            audit(MCP_AUDIT_INVALID_ARGUMENTS);
            return key_too_long(w, era, name);
        }
        None => None,
    };
    // A keyed tool's call without a key is keyed by the transport's retry
    // key (MQTT Correlation Data), under a tag of its own: never an
    // argument key's entry.
    let retry = key.is_none() && tool.idempotency_key.is_some();
    let tag = dedup_tag(index, era.is_modern(), retry);
    let key = match key {
        None if retry => info.retry_key.filter(|k| k.len() <= MCP_DEDUP_KEY_MAX),
        k => k,
    };
    let principal = info.principal.unwrap_or(&[]);
    let dedup = dedup.filter(|_| cfg!(feature = "policy"));
    // With a store, keys are durable: an intent before the callback, the
    // result after it (crate::dedup), and an interrupted call never reruns.
    // (An attached store has all four hooks: mcp_dedup_set_store checks.)
    #[cfg(not(feature = "policy"))]
    let store: Option<Attached<'_, mcp_store_t>> = None;
    let recoverable = store.is_some_and(|st| st.store.recover.is_some());
    let crit = s.hooks.critical;
    // The key is claimed before the tool runs, so a repeat arriving on
    // another thread meanwhile is answered without running it; the claim
    // ends below with the result to keep, or with none.
    let ticket = match (key, dedup) {
        (Some(k), Some(d)) => {
            match claim_key(w, era, d, tag, principal, k, info.now_ms, crit, recoverable) {
                Ok(Some(t)) => Some((d, t)),
                answered => {
                    audit(MCP_AUDIT_DUPLICATE);
                    return answered.map(|_| ());
                }
            }
        }
        _ => None,
    };
    #[cfg(feature = "policy")]
    let ticket = match ticket {
        Some((d, (t, true))) => {
            audit(MCP_AUDIT_DUPLICATE);
            return settle(w, s, index, tool, req, args, info, era, d, t, store);
        }
        t => t.map(|(d, (t, _))| (d, t)),
    };
    #[cfg(not(feature = "policy"))]
    let ticket = ticket.map(|(d, (t, _))| (d, t));
    // The run is claimed before the callback too, atomically, so two calls
    // at once cannot both pass the interval. Dropping the claim gives the
    // interval back (the run did not count).
    let admitted = if cfg!(feature = "policy") {
        s.tools
            .rate_claim(index, tool.min_interval_ms, info.now_ms, crit)
    } else {
        Ok(None)
    };
    let rate_claim = match admitted {
        Ok(c) => c,
        Err(wait_ms) => {
            if let Some((d, t)) = ticket {
                d.finish(t, End::Release, store, crit.as_ref());
            }
            audit(MCP_AUDIT_RATE_LIMITED);
            return rate_limited(w, era, wait_ms);
        }
    };
    // Durable before the callback runs: the intent for this key.
    #[cfg(feature = "policy")]
    if let (Some((d, t)), Some(st)) = (&ticket, store) {
        if !d.persist_intent(t, st, crit.as_ref()) {
            drop(rate_claim);
            if let Some((d, t)) = ticket {
                d.finish(t, End::Release, store, crit.as_ref());
            }
            audit(MCP_AUDIT_FAILED);
            return refusal(
                w,
                era,
                b"durable store failed: the tool did not run; retry later",
            );
        }
    }
    let members_start = w.len();
    let mut outcome = MCP_AUDIT_OK;
    let mut counts = false;
    let result = execute(
        w,
        s,
        index,
        tool,
        req,
        args,
        info,
        era,
        &mut outcome,
        &mut counts,
        tail,
    );
    // A run counts against the rate limit once its callback has answered;
    // one that asked for input continues in its retry, which is checked then
    // (as is a call refused before its callback ran: a bad requestState).
    let counted = counts && !(result.is_ok() && outcome == MCP_AUDIT_INPUT_REQUIRED);
    match rate_claim {
        Some(c) if counted => c.keep(),
        not_counted => drop(not_counted),
    }
    if let Some((d, t)) = ticket {
        let done = result.is_ok() && delivered(outcome);
        let end = match w.as_bytes().get(members_start..) {
            Some(m) if done => End::Keep(m),
            _ => End::Release,
        };
        d.finish(t, end, store, crit.as_ref());
    }
    audit(match &result {
        Ok(()) => outcome,
        Err(Fail::Rpc(e)) if e.code == MCP_RPC_INVALID_PARAMS => MCP_AUDIT_INVALID_ARGUMENTS,
        Err(_) => MCP_AUDIT_FAILED,
    });
    result
}

/// Bytes a `tools/call` result adds around what its callback writes, once
/// `{"jsonrpc":"2.0","id":<id>,"result":{` is written: `"content":[`, `]`,
/// `,"isError":false` and, at 2026-07-28, `,"resultType":"complete"` and
/// the serverInfo stamp; then `}}`.
pub(crate) fn call_tail(s: &Server<'_>, era: Era) -> usize {
    let modern = if era.is_modern() {
        1 + super::RESULT_COMPLETE.len() + 1 + super::modern::result_meta_len(&s.info)
    } else {
        0
    };
    br#""content":[],"isError":false}}"#.len() + modern
}

/// The -32603 answer to a call whose result cannot fit the response buffer.
fn no_space<'r>(w: &mut Writer<'_>, id: Option<&[u8]>, needed: usize) -> Fail<'r> {
    super::too_small(
        w,
        id,
        "this tool's result",
        needed,
        ": the tool did not run",
        crate::rpc::short::NO_SPACE,
    )
}

/// The key bytes of the idempotency-key argument `name` (string or number),
/// or `None` when the call does not carry one.
/// A key too long to keep is an argument the model can fix, so it is
/// refused like a schema violation ([`key_too_long`]).
#[inline(never)]
fn idempotency_key<'r>(
    doc: &Doc<'r>,
    args: Option<usize>,
    name: &str,
) -> Result<Option<&'r [u8]>, ()> {
    let Some(v) = args.and_then(|a| doc.get(a, name)) else {
        return Ok(None);
    };
    let key = match doc.kind(v) {
        Some(Kind::String) => doc.str_inner(v).unwrap_or(&[]),
        _ => doc.raw(v),
    };
    if key.len() > MCP_DEDUP_KEY_MAX {
        return Err(());
    }
    Ok(Some(key))
}

/// The isError result for an idempotency key longer than the table keeps:
/// the argument `name`, keyword `maxLength`.
#[inline(never)]
fn key_too_long<'r>(w: &mut Writer<'_>, era: Era, name: &str) -> Result<(), Fail<'r>> {
    let mut msg = MsgBuf::new();
    msg.push(name);
    msg.mark_path("maxLength");
    msg.push(": idempotency key is longer than MCP_DEDUP_KEY_MAX ");
    msg.push_uint(MCP_DEDUP_KEY_MAX as u64);
    refusal_with(w, era, msg.as_bytes(), msg.path_keyword())
}

/// Claims idempotency key `key` in the duplicate table: `Some(ticket)` when
/// the tool may run (with `true`: the store's recovery callback is to settle
/// an interrupted call instead), or `None` when the call was answered here
/// (the original result, or a refusal: result too large to keep, first call
/// still running or interrupted, table busy). Its replay buffer lives only
/// on this path.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn claim_key<'r>(
    w: &mut Writer<'_>,
    era: Era,
    d: &Dedup,
    tag: usize,
    principal: &[u8],
    key: &[u8],
    now_ms: u64,
    crit: Option<crate::sync::Critical>,
    recoverable: bool,
) -> Result<Option<(Ticket, bool)>, Fail<'r>> {
    let mut replay = [0u8; MCP_DEDUP_RESULT_MAX];
    let seen = d.claim(
        tag,
        principal,
        key,
        now_ms,
        crit.as_ref(),
        recoverable,
        &mut replay,
    );
    let text = match seen {
        Seen::New(t) => return Ok(Some((t, false))),
        Seen::Recover(t) => return Ok(Some((t, true))),
        Seen::Result(n) => {
            w.raw_members(replay.get(..n).unwrap_or(&[]))?;
            return Ok(None);
        }
        Seen::Gone => {
            "duplicate request: the original result was too large to keep; the tool did not run again"
        }
        Seen::InProgress => {
            "duplicate request: the original call is still in progress; retry later (the tool did not run again)"
        }
        Seen::Busy => {
            "duplicate check busy: other calls are in progress; retry (the tool did not run)"
        }
        Seen::Unknown => OUTCOME_UNKNOWN,
    };
    refusal(w, era, text.as_bytes())?;
    Ok(None)
}

/// Set in the duplicate table's tool tag of an entry keyed by
/// `RequestInfo::retry_key` ([`dedup_tag`]).
const RETRY_TAG: usize = 0x80;

/// The duplicate table's tag of tool `index`'s keys (one key space per
/// tool, era and kind of key): t = index × 2 + era, its low 7 bits in bits
/// 0..7, `RETRY_TAG` for a retry key, the rest of t from bit 8. One to one
/// for any index; for the first 64 tools the byte durable logs have always
/// held (`crate::store`), so a log written before tables grew reads the
/// same. Below 2^24 for the 2^22 tools a table can hold.
fn dedup_tag(index: usize, modern: bool, retry: bool) -> usize {
    let t = index * 2 + usize::from(modern);
    (t & 0x7F) | (t >> 7) << 8 | if retry { RETRY_TAG } else { 0 }
}

/// The answer to a retry of a call interrupted by a restart.
const OUTCOME_UNKNOWN: &str = "earlier outcome unknown: a call with this idempotency key was interrupted (the server restarted) before its result was recorded, so it may or may not have taken effect; the tool did not run again. Check the device's state, then retry with a new idempotency key if the action is still wanted";

/// Runs the store's recovery callback for an interrupted call: a final
/// result it writes is kept (and sent) as the call's result; anything else
/// (or no callback) is answered [`OUTCOME_UNKNOWN`] and the key stays
/// interrupted.
#[cfg(feature = "policy")]
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn settle<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    index: usize,
    tool: &Entry<'_>,
    req: &Request<'r>,
    args: Option<usize>,
    info: &RequestInfo<'_>,
    era: Era,
    d: &Dedup,
    t: Ticket,
    store: Option<Attached<'_, mcp_store_t>>,
) -> Result<(), Fail<'r>> {
    let crit = s.hooks.critical;
    let Some(recover) = store.and_then(|a| {
        a.store
            .recover
            .map(|f| Handler::C(Some(f), a.store.recover_user))
    }) else {
        d.finish(t, End::Unknown, store, crit.as_ref());
        return refusal(w, era, OUTCOME_UNKNOWN.as_bytes());
    };
    let mark = w.mark();
    let start = w.len();
    let mut outcome = MCP_AUDIT_OK;
    let mut counts = false;
    // The recovery callback runs as the tool would, under its name.
    let recovering = Entry {
        handler: recover,
        ..*tool
    };
    let r = execute(
        w,
        s,
        index,
        &recovering,
        req,
        args,
        info,
        era,
        &mut outcome,
        &mut counts,
        call_tail(s, era),
    );
    match w.as_bytes().get(start..) {
        Some(m) if r.is_ok() && delivered(outcome) => {
            d.finish(t, End::Keep(m), store, crit.as_ref());
            Ok(())
        }
        _ => {
            d.finish(t, End::Unknown, store, crit.as_ref());
            w.rewind(mark);
            refusal(w, era, OUTCOME_UNKNOWN.as_bytes())
        }
    }
}

/// True for the audit outcome of a result the callback finished and the
/// client gets (kept for a repeated idempotency key).
fn delivered(outcome: u32) -> bool {
    matches!(
        outcome,
        MCP_AUDIT_OK | MCP_AUDIT_IS_ERROR | MCP_AUDIT_OVER_DECLARED
    )
}

/// The isError result for a call refused by its rate limit.
#[inline(never)]
fn rate_limited<'r>(w: &mut Writer<'_>, era: Era, wait_ms: u32) -> Result<(), Fail<'r>> {
    let mut text = MsgBuf::new();
    text.push("rate limited: retry in ");
    text.push_uint(u64::from(wait_ms));
    text.push(" ms");
    refusal(w, era, text.as_bytes())
}

/// The first violation of a call's arguments, by what checked them.
#[derive(Clone, Copy)]
enum Refused {
    #[cfg(feature = "text-tools")]
    Text(Violation),
    Program(schema::PViolation),
}

/// The isError result for arguments that break the tool's inputSchema
/// (SEP-1303): the message as text, and in the block's own `_meta` the
/// argument's path and the keyword broken, e.g.
/// `{"type":"text","text":"percent: 120 is above maximum 100",
/// "_meta":{"emcp/invalidArgument":{"path":"percent","keyword":"maximum"}}}`.
/// (Not structuredContent: clients check that against the outputSchema.)
/// The message is built here, once the walk is over: its buffer is not on
/// the stack while the arguments are validated.
#[inline(never)]
fn invalid_arguments<'r>(
    w: &mut Writer<'_>,
    era: Era,
    tool: &Entry<'_>,
    doc: &Doc<'_>,
    v: Refused,
) -> Result<(), Fail<'r>> {
    let mut msg = MsgBuf::new();
    match (v, tool.def) {
        (Refused::Program(v), Def::Built { input, .. }) => v.describe(input, doc, &mut msg),
        #[cfg(feature = "text-tools")]
        (Refused::Text(v), Def::Text { input_schema, .. }) => {
            let input = Schema::new(input_schema);
            v.describe(&input, doc, &mut msg)
        }
        #[allow(unreachable_patterns)]
        _ => {}
    }
    refusal_with(w, era, msg.as_bytes(), msg.path_keyword())
}

/// An isError result with one text block; the tool did not run.
#[inline(never)]
fn refusal<'r>(w: &mut Writer<'_>, era: Era, text: &[u8]) -> Result<(), Fail<'r>> {
    refusal_with(w, era, text, None)
}

/// [`refusal`], the block carrying the invalid argument's path and keyword.
#[inline(never)]
fn refusal_with<'r>(
    w: &mut Writer<'_>,
    era: Era,
    text: &[u8],
    invalid: Option<(&[u8], &str)>,
) -> Result<(), Fail<'r>> {
    let _ = w.key("content");
    let _ = w.begin_array();
    let _ = w.begin_object();
    let _ = w.kv_str("type", "text");
    let _ = w.key("text");
    let _ = w.string_bytes(text);
    if let Some((path, keyword)) = invalid {
        let _ = w.key("_meta");
        let _ = w.begin_object();
        let _ = w.key("emcp/invalidArgument");
        let _ = w.begin_object();
        let _ = w.key("path");
        let _ = w.string_bytes(path);
        let _ = w.kv_str("keyword", keyword);
        let _ = w.end_object();
        let _ = w.end_object();
    }
    let _ = w.end_object();
    let _ = w.end_array();
    let _ = w.key("isError");
    let _ = w.bool(true);
    if era.is_modern() {
        let _ = super::result_complete(w);
    }
    Ok(w.status()?)
}

/// Hands one record to the firmware's audit hook, if it set one.
// Cold, and its record would sit in every caller's frame if inlined.
#[inline(never)]
fn audit(
    s: &Server<'_>,
    info: &RequestInfo<'_>,
    tool: &Entry<'_>,
    req: &Request<'_>,
    args: Option<usize>,
    outcome: u32,
) {
    let Some((f, clock, user)) = s.hooks.audit else {
        return;
    };
    let doc = &req.doc;
    let arguments: &[u8] = args.map_or(b"{}", |a| doc.raw(a));
    let meta = req.meta_object();
    let trace = crate::call::trace_id_of(doc, meta);
    let (principal, principal_len) = info
        .principal
        .map_or((core::ptr::null(), 0), |p| (p.as_ptr(), p.len()));
    let duration_ms = clock.map_or(0, |c| c(user).saturating_sub(info.now_ms));
    let record = mcp_audit_t {
        principal: principal.cast(),
        principal_len,
        tool: tool.name.as_ptr().cast(),
        tool_len: tool.name.len(),
        arguments: arguments.as_ptr().cast(),
        arguments_len: arguments.len(),
        trace_id: trace.map_or(core::ptr::null(), |t| t.as_ptr().cast()),
        outcome,
        started_ms: info.now_ms,
        duration_ms,
        transport_context: info.transport_context,
    };
    f(user, &record);
}

/// Runs a validated, allowed, admitted call of tool `index`; sets the audit
/// `outcome` of a result (the caller derives it for errors) and `counts`
/// when the run counts against the tool's rate limit (its callback answered
/// without asking for input). The size of each result the callback writes is
/// recorded for the tool (its high-water mark), and one larger than the
/// tool declares is delivered but audited `MCP_AUDIT_OVER_DECLARED`.
/// Out of line: inlined into `run_validated` (as `opt-level = "z"` did
/// into the former one-piece `call`), its locals, a few hundred bytes with
/// the request-state buffers, would sit on the stack under the claims.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn execute<'r>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    index: usize,
    tool: &Entry<'_>,
    req: &Request<'r>,
    args: Option<usize>,
    info: &RequestInfo<'_>,
    era: Era,
    outcome: &mut u32,
    counts: &mut bool,
    tail: usize,
) -> Result<(), Fail<'r>> {
    let doc = req.doc;
    // A retry of an input_required call: its state must be the one this
    // server issued for this tool, untouched, before the callback sees it.
    let mut state_buf = [0u8; MCP_MAX_REQUEST_STATE];
    let state_len = mrtr::request_state(req, &s.state_mac, tool.name.as_bytes(), &mut state_buf)?;
    let opts = ResultOpts {
        start: w.mark(),
        // At 2026-07-28 the request declares the client's capabilities; in
        // the legacy era a transport that can carry server-to-client requests
        // says which ones the client declared at initialize.
        modern: era.is_modern() || mrtr::legacy_caps(info) != 0,
        // Read only by input requests (`mrtr`).
        caps: if !cfg!(feature = "mrtr") {
            0
        } else if era.is_modern() {
            mrtr::declared_caps(req)
        } else {
            mrtr::legacy_caps(info)
        },
        state_enabled: cfg!(feature = "mrtr") && s.state_mac.enabled(),
        mode: crate::call::Mode::Tool,
        // What follows the callback's writes: `"content":[` is written below.
        reserve: tail - br#""content":["#.len(),
    };
    w.key("content")?;
    w.begin_array()?;
    let content_start = w.len();
    let call = Call {
        doc,
        args,
        name: tool.name,
        input_schema: tool.input_schema().unwrap_or("{}"),
        input_program: tool.input_program(),
        typed: tool.args(),
        meta: req.meta_object(),
        inputs: req
            .input_responses()
            .filter(|&m| doc.kind(m) == Some(Kind::Object)),
        state: state_len.and_then(|n| state_buf.get(..n)),
        info,
        uri: None,
    };
    let mut state_out = [0u8; MCP_MAX_REQUEST_STATE];
    let mut result = ToolResult::new(w, opts, &mut state_out);
    *counts = true;
    let rc = tool.handler.run(&call, &mut result);
    let end = result.end();
    let finished = result.finish();
    w.status()?;
    // A needed capability the client lacks is the answer, whatever the tool
    // returned; the tool only asked for input, so the run does not count.
    if let Ok(Finished {
        missing: bit @ 1.., ..
    }) = finished
    {
        *counts = false;
        return Err(mrtr::missing_capability(bit));
    }
    if rc < 0 {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Tool callback failed",
        )));
    }
    let Ok(finished) = finished else {
        return Err(Fail::Rpc(RpcError::new(
            MCP_RPC_INTERNAL_ERROR,
            "Tool result left structuredContent open",
        )));
    };
    if finished.input {
        *outcome = MCP_AUDIT_INPUT_REQUIRED;
        mrtr::close_input_required(w, &s.state_mac, tool.name.as_bytes(), &finished, &state_out)?;
        return Ok(());
    }
    // What the callback wrote, as `max_result_len` counts it: the blocks
    // and `,"structuredContent":{...}` (not the `]` that closed the blocks
    // before it, which the envelope counts).
    let written = end.saturating_sub(content_start + usize::from(finished.structured.is_some()));
    s.tools
        .record_result(index, written, s.hooks.critical.as_ref());
    if finished.is_error {
        *outcome = MCP_AUDIT_IS_ERROR;
    }
    // The answer fits this buffer, so it is sent; the declaration that let
    // the call in is what was wrong, and the audit says so.
    if tool.max_result_len != 0 && written > tool.max_result_len {
        *outcome = MCP_AUDIT_OVER_DECLARED;
    }
    // An execution error (isError) need not match the output schema.
    let output = match tool.def {
        #[cfg(feature = "text-tools")]
        Def::Text { output_schema, .. } => output_schema.map(Out::Text),
        Def::Built { output, .. } => output.map(Out::Program),
    };
    match (output, finished.structured) {
        (Some(_), _) if finished.is_error => {}
        (Some(_), None) => {
            return Err(Fail::Rpc(RpcError::new(
                MCP_RPC_INTERNAL_ERROR,
                "Tool declares an outputSchema but returned no structuredContent",
            )));
        }
        (Some(schema), Some((start, end))) => {
            check_output(w, req.id, start, end, schema)?;
        }
        (None, _) => {}
    }
    if era.is_modern() {
        super::result_complete(w)?;
    }
    Ok(())
}

/// A tool's output schema: its text, or (built) its program.
#[derive(Clone, Copy)]
enum Out<'a> {
    #[cfg(feature = "text-tools")]
    Text(&'a str),
    Program(&'a [u8]),
}

/// A server fault, never sent silently: structuredContent (bytes
/// `start..end` of the answer) that does not match the tool's own
/// outputSchema.
#[inline(never)]
fn check_output<'r>(
    w: &mut Writer<'_>,
    id: Option<&[u8]>,
    start: usize,
    end: usize,
    schema: Out<'_>,
) -> Result<(), Fail<'r>> {
    let structured = w.as_bytes().get(start..end).unwrap_or(&[]);
    let found = match check(structured, MCP_MAX_DEPTH) {
        Ok(n) if n <= MCP_MAX_OUTPUT_TOKENS => {
            let doc = Doc::new(structured);
            let verdict = match schema {
                #[cfg(feature = "text-tools")]
                Out::Text(text) => {
                    let output = Schema::new(text);
                    schema::validate(&output, output.root(), &doc, Some(doc.root()))
                        .map_err(Refused::Text)
                }
                Out::Program(p) => schema::run(p, &doc, Some(doc.root())).map_err(Refused::Program),
            };
            match verdict {
                Ok(()) => return Ok(()),
                Err(v) => Some(v),
            }
        }
        _ => None,
    };
    Err(output_mismatch(w, id, start, end, schema, found))
}

/// The -32603 error for structuredContent that breaks the outputSchema,
/// saying how (or that it is too large to check).
#[inline(never)]
fn output_mismatch<'r>(
    w: &mut Writer<'_>,
    id: Option<&[u8]>,
    start: usize,
    end: usize,
    schema: Out<'_>,
    found: Option<Refused>,
) -> Fail<'r> {
    let mut msg = MsgBuf::new();
    let doc = Doc::new(w.as_bytes().get(start..end).unwrap_or(&[]));
    match (found, schema) {
        #[cfg(feature = "text-tools")]
        (Some(Refused::Text(v)), Out::Text(text)) => v.describe(&Schema::new(text), &doc, &mut msg),
        (Some(Refused::Program(v)), Out::Program(p)) => v.describe(p, &doc, &mut msg),
        #[allow(unreachable_patterns)]
        (Some(_), _) => {}
        (None, _) => msg.push("larger than MCP_MAX_OUTPUT_TOKENS"),
    }
    super::sent(
        w,
        id,
        MCP_RPC_INTERNAL_ERROR,
        (
            "structuredContent does not match outputSchema: ",
            crate::rpc::short::OUTPUT_SCHEMA,
        ),
        &msg,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tool, era and kind of key has a tag of its own, for tables far
    /// past a byte's worth of tools; the first 64 tools keep the one-byte
    /// tags durable logs already hold (index × 2 + era, `RETRY_TAG` set for
    /// a retry key), and every tag fits a record ([`crate::store::TAG_MAX`]).
    #[test]
    fn dedup_tags_are_one_to_one_and_keep_the_old_bytes() {
        let most = 1usize << 22;
        let mut seen = std::collections::HashSet::new();
        let indexes = (0..5000).chain(most - 5..most);
        for index in indexes {
            for modern in [false, true] {
                for retry in [false, true] {
                    let t = dedup_tag(index, modern, retry);
                    assert!(seen.insert(t), "tag {t:#x} twice (tool {index})");
                    assert!(t <= crate::store::TAG_MAX as usize, "tool {index}");
                    if index < 64 {
                        let old = index * 2 + usize::from(modern);
                        assert_eq!(t, if retry { old | RETRY_TAG } else { old });
                    }
                }
            }
        }
    }
}
