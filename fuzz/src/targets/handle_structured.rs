//! Server::handle on structure-aware requests (every method, both eras,
//! mutated ids, envelopes, params, arguments, escaped and duplicate keys),
//! with the same invariants as `handle`.
use crate::gen::Req;
use arbitrary::Arbitrary;
use emcp::call::RequestInfo;

/// One fuzz input (decoded with `arbitrary` as cargo-fuzz does).
pub fn run(data: &[u8]) {
    let Ok(req) = Req::arbitrary_take_rest(arbitrary::Unstructured::new(data)) else {
        return;
    };
    let server = crate::fixture::shared();
    let text = req.text();
    // A streaming transport: listen streams can be acknowledged.
    let info = RequestInfo {
        emit: Some(accept),
        ..RequestInfo::default()
    };
    let ex = crate::check::all(server, &info, &text);
    // An unmutated tools/call that reached a known tool with a valid id and
    // envelope either ran it or said why not (never silently nothing).
    if req.mutate.is_none() && req.truncate.is_none() && ex.response.is_empty() {
        assert!(
            matches!(req.id, crate::gen::IdSel::Absent) || req.dup.is_some(),
            "no response to a request with an id: {}",
            String::from_utf8_lossy(&text)
        );
    }
}

/// An emit hook that accepts every message.
extern "C" fn accept(_: *mut core::ffi::c_void, _: *const u8, _: usize) -> core::ffi::c_int {
    0
}
