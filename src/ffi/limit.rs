//! The limits the library was built with, so C code can check that the header
//! it was compiled with matches the linked library (build-time overrides:
//! build.rs, `EMCP_LIMITS` in CMake, `CONFIG_EMCP_*` on Zephyr).

use core::ffi::{CStr, c_char};

include!(concat!(env!("OUT_DIR"), "/limit_table.rs"));

/// The value a size limit (`MCP_MAX_TOOLS`, `MCP_SERVER_SIZE`, ... : every
/// `size_t` constant of this header) has in the linked library.
///
/// Limits can be overridden at build time (`EMCP_<NAME>` environment variables
/// read by the cargo build, the CMake option `EMCP_LIMITS`, Kconfig on Zephyr);
/// a program compiled against a header with other values must not use the
/// library. Compare, for example, `mcp_build_limit("MCP_SERVER_SIZE")` with
/// `MCP_SERVER_SIZE` at start-up.
///
/// @param name The constant's name as in this header, NUL-terminated.
/// @return Its value in the library, or 0 for NULL or an unknown name.
///
/// @pre `name` must be NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_build_limit(name: *const c_char) -> usize {
    if name.is_null() {
        return 0;
    }
    // SAFETY: the caller promises a NUL-terminated string.
    let name = unsafe { CStr::from_ptr(name) }.to_bytes();
    LIMITS
        .iter()
        .find(|(n, _)| n.as_bytes() == name)
        .map_or(0, |&(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_effective_values_and_zero_for_unknown_names() {
        let get = |s: &CStr| unsafe { mcp_build_limit(s.as_ptr()) };
        assert_eq!(get(c"MCP_MAX_TOOLS"), crate::limits::MCP_MAX_TOOLS);
        assert_eq!(get(c"MCP_SERVER_SIZE"), crate::limits::MCP_SERVER_SIZE);
        assert_eq!(
            get(c"MCP_TOOL_SLOT_SIZE"),
            crate::limits::MCP_TOOL_SLOT_SIZE
        );
        assert_eq!(get(c"MCP_MAX_TOOLSX"), 0);
        assert_eq!(get(c""), 0);
        assert_eq!(unsafe { mcp_build_limit(core::ptr::null()) }, 0);
    }
}
