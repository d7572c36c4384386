//! Resources, resource templates and prompts: their definitions, checked once
//! at registration, in fixed tables; and the switches that take any entry
//! (tools included) out of its list and back without re-registering it.
//!
//! Owns: what makes a definition valid (URI and template syntax, prompt
//! arguments as a JSON array), registration order (the list order), and the
//! enabled state.
//! Must not: write responses or run callbacks.

use crate::json::Kind;
use crate::limits::*;
use crate::registry::{Handler, RegisterError};
use crate::uri_template;

pub use crate::sync::Switches;

/// What a resource holds: fixed text, fixed bytes, or a callback that writes
/// its contents when read (required for templates).
#[derive(Clone, Copy)]
pub enum Body<'a> {
    /// UTF-8 text, sent as `text`.
    Text(&'a str),
    /// Bytes, sent base64-encoded as `blob`.
    Blob(&'a [u8]),
    /// A callback that writes the contents with `mcp_result_resource_*`.
    Handler(Handler),
}

/// A resource or a resource template.
#[derive(Clone, Copy)]
pub struct Resource<'a> {
    /// The URI, or an RFC 6570 level-1 template when it contains `{`.
    pub uri: &'a str,
    /// Programmatic name.
    pub name: &'a str,
    /// Display title.
    pub title: Option<&'a str>,
    /// What it holds, for the model.
    pub description: Option<&'a str>,
    /// MIME type of its contents.
    pub mime_type: Option<&'a str>,
    /// Its contents.
    pub body: Body<'a>,
}

impl Resource<'_> {
    /// True for a template (listed by `resources/templates/list`).
    pub fn is_template(&self) -> bool {
        uri_template::is_template(self.uri)
    }
}

/// A prompt: a named message template with declared arguments.
#[derive(Clone, Copy)]
pub struct Prompt<'a> {
    /// Unique name.
    pub name: &'a str,
    /// Display title.
    pub title: Option<&'a str>,
    /// What it is for.
    pub description: Option<&'a str>,
    /// The PromptArgument objects as a JSON array
    /// (`[{"name":"zone","description":"...","required":true}]`), listed as written.
    pub arguments: Option<&'a str>,
    /// Writes the messages with `mcp_result_*`.
    pub handler: Handler,
    /// Byte spans of the required argument names in `arguments` (set by registration).
    pub required: [(u16, u16); MCP_MAX_PROMPT_ARGS],
    /// How many of `required` are in use.
    pub n_required: u8,
}

impl<'a> Prompt<'a> {
    /// A prompt with only the required parts.
    pub const fn new(name: &'a str, handler: Handler) -> Self {
        Prompt {
            name,
            title: None,
            description: None,
            arguments: None,
            handler,
            required: [(0, 0); MCP_MAX_PROMPT_ARGS],
            n_required: 0,
        }
    }

    /// The names of the required arguments.
    pub fn required_names(&self) -> impl Iterator<Item = &'a [u8]> + '_ {
        let text = self.arguments.unwrap_or("").as_bytes();
        self.required
            .iter()
            .take(usize::from(self.n_required))
            .filter_map(move |&(a, b)| text.get(usize::from(a)..usize::from(b)))
    }
}

/// The resource and prompt tables, and the server-wide completion callback.
pub struct Catalog<'a> {
    pub(crate) resources: [Option<Resource<'a>>; MCP_MAX_RESOURCES],
    pub(crate) n_resources: usize,
    pub(crate) prompts: [Option<Prompt<'a>>; MCP_MAX_PROMPTS],
    pub(crate) n_prompts: usize,
    /// Which resources are enabled.
    pub resources_on: Switches<MCP_MAX_RESOURCES>,
    /// Which prompts are enabled.
    pub prompts_on: Switches<MCP_MAX_PROMPTS>,
    /// Answers `completion/complete`, when set.
    pub completion: Option<Handler>,
}

impl<'a> Catalog<'a> {
    /// Empty tables.
    pub const fn new() -> Self {
        Catalog {
            resources: [None; MCP_MAX_RESOURCES],
            n_resources: 0,
            prompts: [None; MCP_MAX_PROMPTS],
            n_prompts: 0,
            resources_on: Switches::new(),
            prompts_on: Switches::new(),
            completion: None,
        }
    }

    /// Adds a resource or template at the end of its list.
    pub fn add_resource(&mut self, r: Resource<'a>) -> Result<(), RegisterError> {
        let template = r.is_template();
        let body_ok = match r.body {
            Body::Handler(Handler::C(None, _)) => false,
            Body::Handler(_) => true,
            // A template's contents depend on its variables.
            Body::Text(_) | Body::Blob(_) => !template,
        };
        if r.uri.is_empty()
            || r.uri.len() > MCP_MAX_URI_LEN
            || r.name.is_empty()
            || !body_ok
            || (template && !uri_template::valid(r.uri))
        {
            return Err(RegisterError::BadDefinition);
        }
        if self.resources().any(|(_, e)| e.uri == r.uri) {
            return Err(RegisterError::Duplicate);
        }
        let slot = self
            .resources
            .get_mut(self.n_resources)
            .ok_or(RegisterError::Full)?;
        *slot = Some(r);
        self.n_resources += 1;
        Ok(())
    }

    /// Adds a prompt at the end of the list.
    pub fn add_prompt(&mut self, mut p: Prompt<'a>) -> Result<(), RegisterError> {
        if !crate::registry::valid_name(p.name) || matches!(p.handler, Handler::C(None, _)) {
            return Err(RegisterError::BadDefinition);
        }
        if let Some(args) = p.arguments {
            let (required, n) = required_arguments(args).ok_or(RegisterError::BadDefinition)?;
            p.required = required;
            p.n_required = n;
        }
        if self.prompts().any(|(_, e)| e.name == p.name) {
            return Err(RegisterError::Duplicate);
        }
        let slot = self
            .prompts
            .get_mut(self.n_prompts)
            .ok_or(RegisterError::Full)?;
        *slot = Some(p);
        self.n_prompts += 1;
        Ok(())
    }

    /// Every registered resource and template, enabled or not, with its index.
    pub fn resources(&self) -> impl Iterator<Item = (usize, &Resource<'a>)> {
        self.resources
            .iter()
            .take(self.n_resources)
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().map(|r| (i, r)))
    }

    /// Every registered prompt, enabled or not, with its index.
    pub fn prompts(&self) -> impl Iterator<Item = (usize, &Prompt<'a>)> {
        self.prompts
            .iter()
            .take(self.n_prompts)
            .enumerate()
            .filter_map(|(i, p)| p.as_ref().map(|p| (i, p)))
    }

    /// Number of registered resources and templates.
    pub fn resource_count(&self) -> usize {
        self.n_resources
    }

    /// Number of registered prompts.
    pub fn prompt_count(&self) -> usize {
        self.n_prompts
    }

    /// The enabled prompt called `name`.
    pub fn prompt(&self, name: impl Fn(&str) -> bool) -> Option<&Prompt<'a>> {
        self.prompts()
            .find(|(i, p)| self.prompts_on.enabled(*i) && name(p.name))
            .map(|(_, p)| p)
    }
}

impl Default for Catalog<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks a prompt's `arguments` text (a JSON array of objects, each with a
/// string `name` and optional `title`, `description` strings and `required`
/// boolean) and returns the spans of the required names.
fn required_arguments(text: &str) -> Option<([(u16, u16); MCP_MAX_PROMPT_ARGS], u8)> {
    let n = crate::json::check(text.as_bytes(), MCP_MAX_DEPTH).ok()?;
    if n > MCP_MAX_SCHEMA_TOKENS {
        return None;
    }
    let doc = crate::json::Doc::new(text.as_bytes());
    let root = doc.root();
    if doc.kind(root)? != Kind::Array || text.len() > usize::from(u16::MAX) {
        return None;
    }
    let mut out = [(0u16, 0u16); MCP_MAX_PROMPT_ARGS];
    let mut count = 0u8;
    for arg in doc.elements(root) {
        if doc.kind(arg)? != Kind::Object {
            return None;
        }
        let name = doc.get(arg, "name")?;
        let inner = doc.str_inner(name)?;
        // Names are compared byte for byte with the request's keys.
        if inner.is_empty() || crate::json::has_byte(inner, b'\\') {
            return None;
        }
        for (key, value) in doc.members(arg) {
            let ok = match doc.str_inner(key)? {
                b"name" | b"title" | b"description" => doc.kind(value) == Some(Kind::String),
                b"required" => matches!(doc.kind(value), Some(Kind::True | Kind::False)),
                _ => true,
            };
            if !ok {
                return None;
            }
        }
        let required = doc
            .get(arg, "required")
            .is_some_and(|r| doc.raw(r) == b"true");
        if required {
            let start = (inner.as_ptr() as usize).checked_sub(text.as_ptr() as usize)?;
            let slot = out.get_mut(usize::from(count))?;
            *slot = (
                u16::try_from(start).ok()?,
                u16::try_from(start + inner.len()).ok()?,
            );
            count += 1;
        }
    }
    Some((out, count))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::{Call, ToolResult};

    fn nop(_: &Call<'_>, _: &mut ToolResult<'_, '_>) -> core::ffi::c_int {
        0
    }

    fn res(uri: &'static str, body: Body<'static>) -> Resource<'static> {
        Resource {
            uri,
            name: "n",
            title: None,
            description: None,
            mime_type: None,
            body,
        }
    }

    #[test]
    fn resources_are_checked_and_bounded() {
        let mut c = Catalog::new();
        c.add_resource(res("a://1", Body::Text("x"))).unwrap();
        assert_eq!(
            c.add_resource(res("a://1", Body::Blob(b"y"))).err(),
            Some(RegisterError::Duplicate)
        );
        assert_eq!(
            c.add_resource(res("a://{id}", Body::Text("x"))).err(),
            Some(RegisterError::BadDefinition),
            "a template needs a callback"
        );
        assert_eq!(
            c.add_resource(res("a://{id", Body::Handler(Handler::Rust(nop))))
                .err(),
            Some(RegisterError::BadDefinition)
        );
        assert_eq!(
            c.add_resource(res("", Body::Text("x"))).err(),
            Some(RegisterError::BadDefinition)
        );
        c.add_resource(res("a://{id}", Body::Handler(Handler::Rust(nop))))
            .unwrap();
        let uris: Vec<String> = (2..MCP_MAX_RESOURCES).map(|i| format!("b://{i}")).collect();
        for u in &uris {
            let u: &'static str = Box::leak(u.clone().into_boxed_str());
            c.add_resource(res(u, Body::Text("x"))).unwrap();
        }
        assert_eq!(
            c.add_resource(res("z://full", Body::Text("x"))).err(),
            Some(RegisterError::Full)
        );
        assert_eq!(c.resource_count(), MCP_MAX_RESOURCES);
    }

    #[test]
    fn prompt_arguments_are_parsed_once() {
        let mut c = Catalog::new();
        let p = Prompt {
            arguments: Some(
                r#"[{"name":"zone","required":true},{"name":"note"},{"name":"crop","description":"d","required":true}]"#,
            ),
            ..Prompt::new("p", Handler::Rust(nop))
        };
        c.add_prompt(p).unwrap();
        let got = c.prompt(|n| n == "p").unwrap();
        let names: Vec<&[u8]> = got.required_names().collect();
        assert_eq!(names, [&b"zone"[..], b"crop"]);
        for bad in [
            r#"{"name":"x"}"#,
            r#"[{"title":"no name"}]"#,
            r#"[{"name":"x","required":"yes"}]"#,
            r#"[{"name":"a\u0062"}]"#,
            r#"[1]"#,
            "[",
        ] {
            let p = Prompt {
                arguments: Some(bad),
                ..Prompt::new("q", Handler::Rust(nop))
            };
            assert_eq!(
                c.add_prompt(p).err(),
                Some(RegisterError::BadDefinition),
                "{bad}"
            );
        }
        assert_eq!(
            c.add_prompt(Prompt::new("p", Handler::Rust(nop))).err(),
            Some(RegisterError::Duplicate)
        );
    }

    #[test]
    fn switches_report_changes() {
        let s: Switches<2> = Switches::new();
        assert!(s.enabled(0) && !s.enabled(2));
        assert!(s.set(0, false));
        assert!(!s.set(0, false));
        assert!(!s.enabled(0));
        assert!(s.set(0, true));
        assert!(!s.set(5, true));
    }
}
