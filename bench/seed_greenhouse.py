# The greenhouse gateway server from the project's seed article ("MCP for Edge
# Devices, in depth", ../shared/seeds/000_13747255b535be76.txt), copied
# verbatim as benchmark test data: the Python reference of scripts/bench.
# Standard library only; MCP 2026-07-28 over stdio. LAST stays empty (the
# MQTT bridge is not part of the article), so read_sensor answers
# "no reading yet".
import json, sys, time

VERSION = "2026-07-28"
INFO = {"name": "greenhouse-gw", "version": "0.4.0"}
LAST = {}                    # sensor_id -> (value, unit, epoch_s), filled by the MQTT bridge
VENT = {"percent": 0, "wind_lock": False}

TOOLS = [                    # fixed order helps client caches and prompt caches
  {"name": "read_sensor",
   "description": "Latest reading of one sensor: value, unit, age_s.",
   "inputSchema": {"type": "object", "required": ["sensor_id"],
     "properties": {"sensor_id": {"type": "string", "enum": ["t1", "t2", "rh1", "soil1"]}}},
   "annotations": {"readOnlyHint": True}},
  {"name": "set_vent",
   "description": "Open the roof vent to 0-100 percent. Refused while the wind lock is on.",
   "inputSchema": {"type": "object", "required": ["percent"],
     "properties": {"percent": {"type": "integer", "minimum": 0, "maximum": 100}}},
   "annotations": {"readOnlyHint": False, "idempotentHint": True}},
]

def reply(id_, result):
    result.setdefault("resultType", "complete")
    result.setdefault("_meta", {})["io.modelcontextprotocol/serverInfo"] = INFO
    return {"jsonrpc": "2.0", "id": id_, "result": result}

def error(id_, code, msg, data=None):
    e = {"code": code, "message": msg}
    if data is not None:
        e["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": e}

def tool_result(text, structured, is_error=False):
    return {"content": [{"type": "text", "text": text}],
            "structuredContent": structured, "isError": is_error}

def call_tool(name, args):
    if name == "read_sensor":
        v = LAST.get(args.get("sensor_id"))
        if v is None:
            return tool_result("no reading yet", {"ok": False}, True)
        age = round(time.time() - v[2])
        return tool_result(f"{v[0]} {v[1]}, {age}s old", {"value": v[0], "unit": v[1], "age_s": age})
    if name == "set_vent":
        pct = args.get("percent")
        if not isinstance(pct, int) or not 0 <= pct <= 100:
            return tool_result("percent must be an integer 0-100", {"ok": False}, True)
        if VENT["wind_lock"] and pct > 0:
            return tool_result("refused: wind lock active", {"ok": False}, True)
        VENT["percent"] = pct     # real code publishes to the actuator and waits for an ack
        return tool_result(f"vent set to {pct}%", {"ok": True, "percent": pct})
    return None

def handle(msg):
    id_, method = msg.get("id"), msg.get("method")
    params = msg.get("params") or {}
    if id_ is None:
        return None                               # notification, e.g. notifications/cancelled
    ver = params.get("_meta", {}).get("io.modelcontextprotocol/protocolVersion")
    if ver != VERSION:                            # also catches a legacy initialize
        return error(id_, -32022, "Unsupported protocol version",
                     {"supported": [VERSION], "requested": ver})
    if method == "server/discover":
        return reply(id_, {"supportedVersions": [VERSION], "capabilities": {"tools": {}},
                           "ttlMs": 3600000, "cacheScope": "public"})
    if method == "tools/list":
        return reply(id_, {"tools": TOOLS, "ttlMs": 3600000, "cacheScope": "public"})
    if method == "tools/call":
        res = call_tool(params.get("name"), params.get("arguments") or {})
        if res is None:
            return error(id_, -32602, "Unknown tool")
        return reply(id_, res)
    return error(id_, -32601, "Method not found")

for line in sys.stdin:                            # EOF on stdin is the shutdown signal
    try:
        out = handle(json.loads(line))
    except Exception as exc:                      # never let a bad line kill the loop
        print(f"bad message: {exc}", file=sys.stderr)
        continue
    if out is not None:
        sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
        sys.stdout.flush()
