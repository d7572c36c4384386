//! Server::handle on arbitrary bytes, with the fixture server (tools with
//! schemas, counting handlers that re-validate their arguments).
use emcp::call::RequestInfo;

/// One fuzz input.
pub fn run(data: &[u8]) {
    let server = crate::fixture::shared();
    crate::check::all(server, &RequestInfo::default(), data);
}
