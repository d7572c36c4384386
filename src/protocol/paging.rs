//! Cursor pagination shared by every list method (`tools/list`,
//! `resources/list`, `resources/templates/list`, `prompts/list`).
//!
//! Owns: the cursor format (the decimal index of the first entry of a page in
//! the full table) and the rule that a page ends after `page_size` entries or
//! when the next entry would not leave room for the rest of the response.

use crate::json::{Doc, WriteError, Writer};
use crate::limits::MCP_RPC_INVALID_PARAMS;
use crate::rpc::{Request, RpcError};
use crate::state::{Fail, Server};

/// The index the request's `cursor` names, 0 without one; a cursor that is
/// not one this server issued for a table of `total` entries is -32602.
pub fn start<'r>(req: &Request<'r>, total: usize) -> Result<usize, Fail<'r>> {
    match req.param("cursor") {
        None => Ok(0),
        Some(c) => parse_cursor(&req.doc, c)
            .filter(|&i| i > 0 && i < total)
            .ok_or(Fail::Rpc(RpcError::new(
                MCP_RPC_INVALID_PARAMS,
                "Invalid cursor",
            ))),
    }
}

/// Writes `"key":[...]` with the entries of one page, then `nextCursor` when
/// entries remain. `entries` yields (table index, entry), already filtered to
/// what this request may see, starting at the page's first index. When not
/// even the page's first entry fits, the request (`id`) is answered -32603
/// with the buffer that would hold it.
pub fn write<'r, T: Copy>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    id: Option<&[u8]>,
    key: &str,
    entries: impl Iterator<Item = (usize, T)>,
    entry: impl FnMut(&mut Writer<'_>, T) -> Result<(), WriteError>,
) -> Result<(), Fail<'r>> {
    let mut src = Source {
        entries,
        entry,
        last: None,
    };
    // With the catalog there are four lists: one page loop serves them all
    // (through `dyn`). Without it tools/list is the only caller.
    #[cfg(feature = "catalog")]
    let src: &mut dyn Page = &mut src;
    #[cfg(not(feature = "catalog"))]
    let src = &mut src;
    write_page(w, s, id, key, src)
}

/// One list's entries, seen through [`Page`] so that the page loop can be
/// compiled once for every list method.
struct Source<I, T, F> {
    entries: I,
    entry: F,
    /// The entry written last, to measure when it did not fit.
    last: Option<T>,
}

trait Page {
    /// Advances to the next entry: its table index, and the result of
    /// writing it when `write` (else `Ok` and nothing written).
    fn step(&mut self, w: &mut Writer<'_>, write: bool) -> Option<(usize, Result<(), WriteError>)>;
    /// The bytes of the entry written last, measured (not written).
    fn last_len(&mut self) -> usize;
}

impl<I, T, F> Page for Source<I, T, F>
where
    I: Iterator<Item = (usize, T)>,
    T: Copy,
    F: FnMut(&mut Writer<'_>, T) -> Result<(), WriteError>,
{
    // Without the catalog (one caller) this folds into the page loop.
    #[inline(always)]
    fn step(&mut self, w: &mut Writer<'_>, write: bool) -> Option<(usize, Result<(), WriteError>)> {
        let (i, t) = self.entries.next()?;
        self.last = Some(t);
        Some((i, if write { (self.entry)(w, t) } else { Ok(()) }))
    }

    fn last_len(&mut self) -> usize {
        let mut m = Writer::measure();
        if let Some(t) = self.last {
            let _ = (self.entry)(&mut m, t);
        }
        m.len()
    }
}

fn write_page<'r, P: Page + ?Sized>(
    w: &mut Writer<'_>,
    s: &Server<'_>,
    id: Option<&[u8]>,
    key: &str,
    src: &mut P,
) -> Result<(), Fail<'r>> {
    let page = match s.tools.page_size {
        0 => usize::MAX,
        n => n as usize,
    };
    let reserve = tail_reserve(s);
    w.key(key)?;
    w.begin_array()?;
    let mut next = None;
    let mut listed = 0;
    loop {
        let mark = w.mark();
        let before = w.len();
        let Some((i, written)) = src.step(w, listed < page) else {
            break;
        };
        if listed >= page {
            next = Some(i);
            break;
        }
        let fits = written.is_ok() && w.capacity() - w.len() >= reserve;
        listed += 1;
        if !fits {
            if listed == 1 {
                // Not even one entry fits: the response buffer is too
                // small, by what the entry and the page's tail need.
                let needed = before + src.last_len() + reserve;
                return Err(super::too_small(
                    w,
                    id,
                    "one entry of this list",
                    needed,
                    "",
                    crate::rpc::short::LIST_NO_SPACE,
                ));
            }
            w.rewind(mark);
            next = Some(i);
            break;
        }
    }
    w.end_array()?;
    if let Some(n) = next {
        let mut digits = [0u8; 20];
        w.key("nextCursor")?;
        w.string_bytes(crate::json::decimal_digits(n as u64, &mut digits))?;
    }
    Ok(())
}

/// A cursor is the decimal index of the first entry of its page.
fn parse_cursor(doc: &Doc<'_>, c: usize) -> Option<usize> {
    let digits = doc.str_inner(c).filter(|d| matches!(d.len(), 1..=9))?;
    digits.iter().try_fold(0usize, |v, &d| {
        d.is_ascii_digit().then(|| v * 10 + usize::from(d - b'0'))
    })
}

/// Bytes a list page must leave free after its last entry: `nextCursor`, the
/// cache hints, the serverInfo stamp and the closing brackets (strings
/// counted twice for escaping).
pub(crate) fn tail_reserve(s: &Server<'_>) -> usize {
    let i = &s.info;
    160 + 2 * (i.name.len() + i.version.len() + i.title.map_or(0, str::len))
}
