"""The greenhouse tools on the Python SDK's own Streamable HTTP server (mcp 2.3.0),
for bench.py: python3 bench_py_server.py PORT"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

READINGS = {"t1": (21.5, "C"), "t2": (34.1, "C"), "rh1": (62.0, "%")}
server = MCPServer("greenhouse-py", version="0.4.0")
vent = {"percent": 0}


@server.tool(description="Latest reading of one sensor: value, unit, age_s.")
def read_sensor(sensor_id: str) -> dict:
    if sensor_id not in READINGS:
        raise ValueError("unknown sensor_id")
    value, unit = READINGS[sensor_id]
    return {"value": value, "unit": unit, "age_s": 0}


@server.tool(description="Open the roof vent to 0-100 percent.")
def set_vent(percent: int) -> dict:
    vent["percent"] = percent
    return {"ok": True, "percent": percent}


if __name__ == "__main__":
    server.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[1]),
               json_response=True, stateless_http=True)
