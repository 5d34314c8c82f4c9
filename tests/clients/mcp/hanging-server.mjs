// A tiny MCP server (newline-delimited JSON-RPC on stdio) for Deskmate's
// MCP client tests: it does the handshake and lists one tool, `wait`, whose
// calls are never answered — a server that hangs. Started by
// crates/agent/src/mcp/tests.rs with `node`.
import { createInterface } from "node:readline";

const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.method === "initialize") {
    send({
      jsonrpc: "2.0",
      id: msg.id,
      result: {
        protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "hanging", version: "1.0.0" },
      },
    });
  } else if (msg.method === "tools/list") {
    send({
      jsonrpc: "2.0",
      id: msg.id,
      result: {
        tools: [
          {
            name: "wait",
            description: "Never answers.",
            inputSchema: { type: "object", properties: {} },
          },
        ],
      },
    });
  } else if (msg.id !== undefined && msg.method !== "tools/call") {
    send({ jsonrpc: "2.0", id: msg.id, result: {} });
  }
  // tools/call: no answer, ever.
});
