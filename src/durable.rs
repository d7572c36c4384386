//! The firmware's durable store as the C ABI hands it over (`mcp_store_t`):
//! the four log hooks of [`crate::store`] and the optional recovery
//! callback, which has the tool callback's type (hence a layer above the
//! log and the duplicate table, which see only the hooks through
//! [`crate::store::Durable`]).

use core::ffi::c_void;

/// Firmware-supplied durable storage for a duplicate table
/// (`mcp_dedup_set_store`): a log of records on flash or in a file. The
/// firmware owns this struct and what `user` points to; both must outlive
/// the table's use. The hooks are called with the table's lock held, from
/// the thread running `mcp_server_handle`, never two at once for one table.
#[repr(C)]
pub struct mcp_store_t {
    /// Appends one record.
    pub append: crate::store::mcp_store_append_fn,
    /// Makes the appended records durable.
    pub sync: crate::store::mcp_store_sync_fn,
    /// Reads the log at start-up.
    pub read: crate::store::mcp_store_read_fn,
    /// Starts a new log for compaction.
    pub restart: crate::store::mcp_store_restart_fn,
    /// Passed to the four hooks above.
    pub user: *mut c_void,
    /// Optional: settles a call found interrupted after a restart (an intent
    /// without a result). Called like the tool's own callback, with the
    /// retry's arguments, instead of it; it must not act, only read the
    /// device's real state. Return 0 with a final result written (ok or
    /// isError: it is kept and sent as the call's result), or any negative
    /// value when it cannot tell (the retry is then answered "earlier
    /// outcome unknown"). NULL: every interrupted call is answered so.
    pub recover: crate::handler::mcp_tool_fn,
    /// Passed to `recover`.
    pub recover_user: *mut c_void,
}

impl crate::store::Durable for mcp_store_t {
    fn log(&self) -> Option<crate::store::Log> {
        crate::store::Log::of(self.append, self.sync, self.read, self.restart, self.user)
    }
}
