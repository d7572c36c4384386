//! Server::handle on arbitrary bytes, with the fixture server (tools with
//! schemas, counting handlers that re-validate their arguments); and the
//! same server with its tools built as emcp-gen builds them (listing and
//! argument programs), and with its tools from texts compiled into program
//! storage at registration, which must answer every input byte for byte
//! alike.
use emcp::call::RequestInfo;

/// One fuzz input.
pub fn run(data: &[u8]) {
    let info = RequestInfo::default();
    let text = crate::check::all(crate::fixture::shared(), &info, data);
    let built = crate::check::exchange(crate::fixture::shared_built(), &info, data, 4096);
    assert_eq!(
        String::from_utf8_lossy(&text.response),
        String::from_utf8_lossy(&built.response),
        "a built tool answers otherwise than from its texts: {}",
        String::from_utf8_lossy(data)
    );
    assert_eq!(
        text.calls,
        built.calls,
        "callbacks ran otherwise: {}",
        String::from_utf8_lossy(data)
    );
    let stored = crate::check::exchange(crate::fixture::shared_stored(), &info, data, 4096);
    assert_eq!(
        String::from_utf8_lossy(&text.response),
        String::from_utf8_lossy(&stored.response),
        "a tool compiled into program storage answers otherwise than from its texts: {}",
        String::from_utf8_lossy(data)
    );
    assert_eq!(text.calls, stored.calls, "callbacks ran otherwise (stored)");
}
