//! The named values of the C ABI that the core uses too: return codes,
//! flags and kinds, one file per header group (`cbindgen/<group>.rs` lists
//! which). The limits are in `crate::limits`, which re-exports these, so the
//! core reaches every constant as `crate::limits::MCP_*`.

pub mod call;
pub mod catalog;
pub mod errors;
pub mod framer;
pub mod policy;
pub mod result;
pub mod server;
pub mod store;
pub mod tools;

pub use call::*;
pub use catalog::*;
pub use errors::*;
pub use framer::*;
pub use policy::*;
pub use result::*;
pub use server::*;
pub use store::*;
pub use tools::*;
