// A scripted OpenAI-compatible model server on loopback for the client
// library tests: it streams Chat Completions as SSE with replies chosen by
// reading each request (the system prompt and the messages), so the script
// holds however the agent's calls interleave. It stands in for a paid LLM;
// it is not a model. The Rust tests use `deskmate_llm::scripted` and the
// window tests `tests/e2e/model_server.py` for the same purpose.

import http from "node:http";

/** One Chat Completions chunk with this delta. */
export function chunk(delta, finishReason = null) {
  return {
    id: "chatcmpl-clients",
    object: "chat.completion.chunk",
    model: "scripted",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  };
}

/** A reply streaming `text` in `pieces` parts, `pause` ms apart. */
export function text(said, { pieces = 3, pause = 0 } = {}) {
  const step = Math.max(1, Math.ceil(said.length / pieces));
  const frames = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < said.length; i += step) {
    if (pause) frames.push(pause);
    frames.push(chunk({ content: said.slice(i, i + step) }));
  }
  return [...frames, chunk({}, "stop")];
}

/**
 * A reply calling tools: `calls` is a list of [id, name, argumentsObject];
 * each call's arguments arrive split over two chunks, as real providers send
 * them. `before` is text said before the calls.
 */
export function toolCalls(calls, { before = "", pause = 0 } = {}) {
  const frames = [chunk({ role: "assistant", content: before })];
  calls.forEach(([id, name, args], index) => {
    const json = JSON.stringify(args);
    const half = Math.ceil(json.length / 2);
    if (pause) frames.push(pause);
    frames.push(
      chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: json.slice(0, half) } }] }),
    );
    if (pause) frames.push(pause);
    frames.push(chunk({ tool_calls: [{ index, function: { arguments: json.slice(half) } }] }));
  });
  return [...frames, chunk({}, "tool_calls")];
}

/**
 * Starts the server on 127.0.0.1 (a free port). `plan(body)` returns the
 * reply's frames (chunk objects; a number is a pause in ms) or a promise of
 * them. Resolves to { baseUrl, requests, close }.
 */
export async function startScriptedModel(plan) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (part) => (raw += part));
    req.on("end", async () => {
      let body;
      try {
        body = JSON.parse(raw || "{}");
      } catch {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "the scripted model got a body that is not JSON" } }));
        return;
      }
      requests.push(body);
      let frames;
      try {
        frames = await plan(body);
      } catch (e) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `the scripted model has no reply: ${e.message}` } }));
        return;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const frame of frames) {
        if (typeof frame === "number") {
          await new Promise((resolve) => setTimeout(resolve, frame));
          continue;
        }
        res.write(`data: ${JSON.stringify(frame)}\n\n`);
      }
      const usage = {
        id: "chatcmpl-clients",
        object: "chat.completion.chunk",
        choices: [],
        usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
      };
      res.end(`data: ${JSON.stringify(usage)}\n\ndata: [DONE]\n\n`);
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address();
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
