//! The server's state: identity, the tool and catalog tables, the
//! `requestState` MAC and the firmware's hooks, with registration.
//!
//! Owns: [`Server`] and what every method body shares ([`Fail`]), so the
//! method bodies in [`crate::protocol`] depend on it without depending on
//! the dispatcher ([`crate::server`]) that calls them.
//! Must not: dispatch requests or write responses.

use crate::catalog::{Catalog, Prompt, Resource};
use crate::json::WriteError;
use crate::limits::*;
use crate::mac::StateMac;
use crate::policy::Hooks;
use crate::registry::{RegisterError, Registry, Tool};
use crate::rpc::RpcError;

/// Identity and list policy, fixed at initialisation.
#[derive(Clone, Copy)]
pub struct ServerInfo<'a> {
    /// `serverInfo.name`.
    pub name: &'a str,
    /// `serverInfo.version` (non-empty).
    pub version: &'a str,
    /// `serverInfo.title`.
    pub title: Option<&'a str>,
    /// `instructions` for the model.
    pub instructions: Option<&'a str>,
    /// `ttlMs` on cacheable results.
    pub list_ttl_ms: u32,
    /// `cacheScope`: public when true, private otherwise.
    pub cache_public: bool,
}

/// A server: its identity and its tools.
pub struct Server<'a> {
    /// Identity and list policy.
    pub info: ServerInfo<'a>,
    /// Registered tools.
    pub tools: Registry<'a>,
    /// Registered resources, templates and prompts, and the completion callback.
    pub catalog: Catalog<'a>,
    /// How `requestState` of input_required results is protected.
    pub state_mac: StateMac,
    /// The firmware's policy and audit hooks.
    pub hooks: Hooks,
}

/// How a method body failed.
#[derive(Debug)]
pub enum Fail<'r> {
    /// Answer with this JSON-RPC error.
    Rpc(RpcError<'r>),
    /// The writer stopped (overflow or misuse).
    Write(WriteError),
    /// The JSON-RPC error with this code is already written, from the start
    /// of the buffer ([`crate::protocol::sent`]): a message built where the
    /// failure was found, so no message buffer waits on the stack under the
    /// whole request for it.
    Sent(i32),
}

impl From<WriteError> for Fail<'_> {
    fn from(e: WriteError) -> Self {
        Fail::Write(e)
    }
}

impl<'a> Server<'a> {
    /// A server with no tools.
    pub const fn new(info: ServerInfo<'a>) -> Self {
        Server {
            info,
            tools: Registry::new(),
            catalog: Catalog::new(),
            state_mac: StateMac::None,
            hooks: Hooks {
                policy: None,
                audit: None,
                critical: None,
            },
        }
    }

    /// Registers a tool; its position is its place in `tools/list`. A tool
    /// without the read-only hint must declare `max_result_len` (the most
    /// its result writes), or it is refused with
    /// [`RegisterError::ResultLenUndeclared`].
    pub fn add_tool(&mut self, tool: Tool<'a>) -> Result<(), RegisterError> {
        self.tools.add(tool, 0)
    }

    /// [`Server::add_tool`] with the seal of the tool's schemas
    /// ([`crate::schema::seal`]), which a build without the `schema-check`
    /// feature requires.
    pub fn add_tool_sealed(&mut self, tool: Tool<'a>, seal: u32) -> Result<(), RegisterError> {
        self.tools.add(tool, seal)
    }

    /// Tests: registers a tool as a firmware of this build does, with its
    /// schemas' seal where the build has no schema checker (the unit tests
    /// run in every profile; `add_tool` alone is tested by the registry's).
    #[cfg(test)]
    pub(crate) fn add_tool_as_built(&mut self, tool: Tool<'a>) -> Result<(), RegisterError> {
        if cfg!(feature = "text-tools") || tool.listing.is_some() {
            return self.tools.add(tool, 0);
        }
        // A build that takes built tools only: the tool as emcp-gen builds
        // it (listing and programs; the storage outlives the server).
        // Schemas the checker refuses stay text (and are refused).
        fn leak(b: std::vec::Vec<u8>) -> &'static [u8] {
            std::boxed::Box::leak(b.into_boxed_slice())
        }
        let program = |text: &str| {
            let mut buf = std::vec![0u8; 1 << 16];
            crate::schema::emit(text, &mut buf).ok().map(|n| {
                buf.truncate(n);
                leak(buf)
            })
        };
        let (Some(input), Ok(output)) = (
            program(tool.input_schema),
            tool.output_schema.map(|o| program(o).ok_or(())).transpose(),
        ) else {
            return self.tools.add(tool, 0);
        };
        let mut buf = std::vec![0u8; 1 << 16];
        let n =
            crate::registry::listing(&tool, &mut buf).map_err(|_| RegisterError::BadDefinition)?;
        buf.truncate(n);
        let listing = core::str::from_utf8(leak(buf)).map_err(|_| RegisterError::BadDefinition)?;
        self.tools.add(
            Tool {
                listing: Some(listing),
                input_program: Some(input),
                output_program: output,
                ..tool
            },
            0,
        )
    }

    /// Registers a resource, or a template when its URI contains `{`.
    pub fn add_resource(&mut self, r: Resource<'a>) -> Result<(), RegisterError> {
        self.catalog.add_resource(r)
    }

    /// Registers a prompt; its position is its place in `prompts/list`.
    pub fn add_prompt(&mut self, p: Prompt<'a>) -> Result<(), RegisterError> {
        self.catalog.add_prompt(p)
    }

    /// Enables or disables the tool, prompt or resource (`MCP_LIST_*` kind)
    /// called `name` (a resource by its URI or template). Safe while requests
    /// are served. `Some(changed)`, or `None` when there is no such entry.
    pub fn set_enabled(&self, kind: u32, name: &str, on: bool) -> Option<bool> {
        let c = &self.catalog;
        match kind {
            MCP_LIST_TOOLS => self
                .tools
                .position_by(|n| n == name)
                .map(|(i, _)| self.tools.set_enabled(i, on)),
            MCP_LIST_PROMPTS => c
                .prompts()
                .find(|(_, p)| p.name == name)
                .map(|(i, _)| c.prompts_on.set(i, on)),
            MCP_LIST_RESOURCES => c
                .resources()
                .find(|(_, r)| r.uri == name)
                .map(|(i, _)| c.resources_on.set(i, on)),
            _ => None,
        }
    }
}
