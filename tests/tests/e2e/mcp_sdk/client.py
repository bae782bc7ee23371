"""Drives `aide mcp` through the official MCP Python SDK (PyPI `mcp`).

Reads a plan on stdin: {"server": [program, args...], "cwd": dir,
"calls": [{"name": tool, "arguments": {...}}]}. Prints one JSON document:
{"instructions": the server's, "tools": [each listed tool as the SDK parsed it],
 "calls": [{"result": the CallToolResult} or {"error": what the SDK raised}]}.
The SDK itself checks each result's structuredContent against the tool's
outputSchema and raises when it does not fit.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


async def main():
    plan = json.load(sys.stdin)
    program, *args = plan["server"]
    params = StdioServerParameters(command=program, args=args, env=dict(os.environ), cwd=plan["cwd"])
    report = {"instructions": "", "tools": [], "calls": []}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            report["instructions"] = (await session.initialize()).instructions or ""
            report["tools"] = [dump(tool) for tool in (await session.list_tools()).tools]
            for call in plan["calls"]:
                try:
                    result = await session.call_tool(call["name"], call.get("arguments", {}))
                    report["calls"].append({"result": dump(result)})
                except Exception as e:  # the SDK's verdict is what the test reads
                    report["calls"].append({"error": f"{type(e).__name__}: {e}"})
    json.dump(report, sys.stdout)


asyncio.run(main())
