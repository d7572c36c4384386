//! The greenhouse gateway's two tools on rmcp, the official MCP Rust SDK,
//! served over stdio: the same tools, schemas, answers and audit line as
//! examples-c/greenhouse (sensor readings fixed at startup, soil1 without a
//! reading, a wind lock that refuses opening the vent).

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::Instant;

use rmcp::{
    ServerHandler, ServiceExt,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig},
    tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum SensorId {
    T1,
    T2,
    Rh1,
    Soil1,
}

#[derive(Deserialize, JsonSchema)]
struct ReadSensor {
    sensor_id: SensorId,
}

#[derive(Deserialize, JsonSchema)]
struct SetVent {
    /// 0-100
    #[schemars(range(min = 0, max = 100))]
    percent: i64,
}

#[derive(Clone)]
struct Greenhouse {
    tool_router: ToolRouter<Self>,
}

static WIND_LOCK: AtomicBool = AtomicBool::new(false);
static VENT: AtomicI64 = AtomicI64::new(0);

fn refused(msg: &str) -> CallToolResult {
    let mut r = CallToolResult::error(vec![ContentBlock::text(msg)]);
    r.structured_content = Some(json!({"ok": false}));
    r
}

#[tool_router]
impl Greenhouse {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Latest reading of one sensor: value, unit, age_s.",
        annotations(read_only_hint = true)
    )]
    async fn read_sensor(&self, Parameters(p): Parameters<ReadSensor>) -> CallToolResult {
        let reading = match p.sensor_id {
            SensorId::T1 => Some((21.5, "C")),
            SensorId::T2 => Some((34.1, "C")),
            SensorId::Rh1 => Some((62.0, "%")),
            SensorId::Soil1 => None,
        };
        let r = match reading {
            None => refused("no reading yet"),
            Some((value, unit)) => {
                let age_s = START.with(|s| s.elapsed().as_secs());
                let mut r = CallToolResult::success(vec![ContentBlock::text(format!(
                    "{value} {unit}, {age_s}s old"
                ))]);
                r.structured_content = Some(json!({"value": value, "unit": unit, "age_s": age_s}));
                r
            }
        };
        audit("read_sensor", r.is_error == Some(true));
        r
    }

    #[tool(
        description = "Open the roof vent to 0-100 percent. Refused while the wind lock is on.",
        annotations(idempotent_hint = true)
    )]
    async fn set_vent(&self, Parameters(p): Parameters<SetVent>) -> CallToolResult {
        let r = if !(0..=100).contains(&p.percent) {
            refused("percent must be an integer 0-100")
        } else if p.percent > 0 && WIND_LOCK.load(Ordering::Relaxed) {
            refused("refused: wind lock active")
        } else {
            VENT.store(p.percent, Ordering::Relaxed);
            let mut r = CallToolResult::success(vec![ContentBlock::text(format!(
                "vent set to {}%",
                p.percent
            ))]);
            r.structured_content = Some(json!({"ok": true, "percent": p.percent}));
            r
        };
        audit("set_vent", r.is_error == Some(true));
        r
    }
}

thread_local! {
    static START: Instant = Instant::now();
}

/// The same audit line as the C example writes to stderr.
fn audit(tool: &str, error: bool) {
    eprintln!(
        "audit: tool={tool} outcome={}",
        if error { "error" } else { "ok" }
    );
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Greenhouse {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("greenhouse-gw", "0.4.0");
        info
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    START.with(|_| ());
    let service = Greenhouse::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
