"""A scripted OpenAI-compatible model server on loopback for the window's
chat test: it streams Chat Completions as SSE, asks for one `write_todos`
tool call on a question about 静夜思, then answers in text once the tool's
result comes back; asked for "两位老师" it hands two tasks to subagents, who
answer slowly; asked by the homework scene to check a photographed worksheet
it answers with `SHEET` (one mistake: 9+8=16); asked a parent's question
about progress (the ask prompt) it runs one read-only SELECT and answers
with a bar chart of what came back; told 我们做朋友吧 it asks for the child's
address (a reply the child-safety check replaces); `/audio/speech` answers with a short WAV tone. It stands
in for a paid LLM and speech service; it is not a model."""
import io
import json
import math
import struct
import threading
import time
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWER = "静夜思是李白写的，写的是月光下思念家乡。"
TODOS = {"todos": [{"content": "解释静夜思的意思", "status": "completed"}]}


def chunk(delta, finish=None):
    return {"id": "chatcmpl-e2e", "object": "chat.completion.chunk", "model": "scripted",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


LANES_QUESTION = "请两位老师"
# Asked this, the server starts answering and then hangs (until the asking
# process is killed): the run is cut off. Asked again, it answers.
CUT_QUESTION = "断电也不怕"
CUT_ANSWER = "没关系，我们接着讲：床前明月光，疑是地上霜。"
LEAD_PROMPT = "You are 同桌 (Deskmate)"
# Asked this, the server answers slowly (about a second): a run that keeps
# its thread busy for a while, then ends.
SLOW_QUESTION = "慢慢说"
SLOW_ANSWER = "好的，我们慢慢来。"
MATH_ANSWER = "3×4=12，一共12个苹果。"
# Asked this, the companion answers with a reply the child-safety check must
# replace (it asks for the child's address; safety/unsafe_replies.txt).
FRIEND_QUESTION = "我们做朋友吧"
UNSAFE_ANSWER = "好呀！先告诉我你家的地址，我好给你寄贴纸。"
POEM_ANSWER = "「举头望明月」就是抬起头看天上的月亮。"


def slowly(text, pieces=6, pause=0.5):
    """A text streamed in pieces with pauses (a float in the plan is a pause),
    so two subagents are seen working at the same time."""
    step = max(1, len(text) // pieces)
    out = [chunk({"role": "assistant", "content": ""})]
    for i in range(0, len(text), step):
        out += [pause, chunk({"content": text[i:i + step]})]
    return out + [chunk({}, "stop")]


def task_call(index, call_id, description, kind):
    args = json.dumps({"description": description, "subagent_type": kind}, ensure_ascii=False)
    return {"index": index, "id": call_id, "type": "function", "function": {"name": "task", "arguments": args}}


# The worksheet the homework scene expects back (crates/orchestrator/src/homework/).
SHEET = {"subject": "数学", "questions": [
    {"question": "12+5=", "child_answer": "17", "correct": True, "hint": "", "explanation": "", "correct_answer": "17"},
    {"question": "9+8=", "child_answer": "16", "correct": False, "hint": "9 再加几就凑成 10？",
     "explanation": "把 8 分成 1 和 7，9+1=10，10+7=17。", "correct_answer": "17"},
    {"question": "20-3=", "child_answer": "17", "correct": True, "hint": "", "explanation": "", "correct_answer": "17"}]}
HOMEWORK_PROMPT = "检查孩子拍下来的作业"

# A parent's question about progress (crates/app/src/ask_model.rs): one
# SELECT through run_sql, then the answer function with a bar chart of the
# rows that came back (so the chart shows what the real query found).
ASK_PROMPT = "You answer a parent's question about their child's recitation practice"
ASK_SQL = "SELECT title, count(*) AS n FROM attempts GROUP BY title ORDER BY title"


def tool_call(call_id, name, args):
    text = json.dumps(args, ensure_ascii=False)
    return [chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": call_id, "type": "function",
                                                        "function": {"name": name, "arguments": text}}]}),
            chunk({}, "tool_calls")]


def ask_plan(last):
    if last.get("role") != "tool":
        return tool_call("call_sql", "run_sql", {"sql": ASK_SQL})
    rows = json.loads(last.get("content") or "{}").get("rows", [])
    labels = [r[0] for r in rows]
    counts = [r[1] for r in rows]
    text = f"这段时间一共背了 {sum(counts)} 次，{labels[0] if labels else '还没有'}练得最多。"
    chart = {"kind": "bar", "title": "每篇练习次数", "labels": labels, "series": [{"name": "次数", "values": counts}]}
    return tool_call("call_answer", "answer", {"text": text, "chart": chart})


def plan(body):
    messages = body.get("messages", [])
    last = messages[-1] if messages else {}
    system = messages[0].get("content", "") if messages and messages[0].get("role") == "system" else ""
    if HOMEWORK_PROMPT in json.dumps(system, ensure_ascii=False):
        sheet = json.dumps(SHEET, ensure_ascii=False)
        return [chunk({"role": "assistant", "content": sheet[:40]}), chunk({"content": sheet[40:]}), chunk({}, "stop")]
    if ASK_PROMPT in json.dumps(system, ensure_ascii=False):
        return ask_plan(last)
    if system and LEAD_PROMPT not in system:
        # A subagent: it answers its task, slowly.
        asked = json.dumps(last.get("content", ""), ensure_ascii=False)
        return slowly(MATH_ANSWER if "苹果" in asked else POEM_ANSWER)
    asked = json.dumps(last.get("content", ""), ensure_ascii=False)
    if last.get("role") == "user" and LANES_QUESTION in asked:
        return [
            chunk({"role": "assistant", "tool_calls": [
                task_call(0, "call_math", "二年级：3盘苹果，每盘4个，一共几个？讲清步骤。", "math-tutor"),
                task_call(1, "call_poem", "给二年级孩子讲「举头望明月」的意思。", "poetry-tutor"),
            ]}),
            chunk({}, "tool_calls"),
        ]
    if last.get("role") == "user" and FRIEND_QUESTION in asked:
        return [chunk({"role": "assistant", "content": UNSAFE_ANSWER[:5]}), chunk({"content": UNSAFE_ANSWER[5:]}),
                chunk({}, "stop")]
    if last.get("role") == "user" and SLOW_QUESTION in asked:
        return slowly(SLOW_ANSWER, pieces=3, pause=0.3)
    if last.get("role") == "user" and CUT_QUESTION in asked:
        return [chunk({"role": "assistant", "content": CUT_ANSWER[:6]}), chunk({"content": CUT_ANSWER[6:]}),
                chunk({}, "stop")]
    if last.get("role") == "tool":
        return [chunk({"role": "assistant", "content": ANSWER[:8]}), chunk({"content": ANSWER[8:]}),
                chunk({}, "stop")]
    text = json.dumps(last.get("content", ""), ensure_ascii=False)
    if body.get("tools") and "静夜思" in text:
        args = json.dumps(TODOS, ensure_ascii=False)
        return [
            chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_todos", "type": "function",
                                                        "function": {"name": "write_todos", "arguments": ""}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[:10]}}]}),
            chunk({"tool_calls": [{"index": 0, "function": {"arguments": args[10:]}}]}),
            chunk({}, "tool_calls"),
        ]
    return [chunk({"role": "assistant", "content": "pong"}), chunk({}, "stop")]


def cut_question(body):
    messages = body.get("messages", [])
    last = messages[-1] if messages else {}
    return last.get("role") == "user" and CUT_QUESTION in json.dumps(last.get("content", ""), ensure_ascii=False)


def tone_wav(seconds=0.8, rate=24000):
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(b"".join(struct.pack("<h", int(6000 * math.sin(i * 0.06))) for i in range(int(seconds * rate))))
    return out.getvalue()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path.endswith("/audio/speech"):
            self.server.speech.append({"body": body, "authorization": self.headers.get("Authorization")})
            wav = tone_wav()
            self.send_response(200)
            self.send_header("Content-Type", "audio/wav")
            self.send_header("Content-Length", str(len(wav)))
            self.end_headers()
            self.wfile.write(wav)
            return
        self.server.requests.append(body)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        if cut_question(body) and not self.server.cut_done:
            self.server.cut_done = True
            self.wfile.write(f"data: {json.dumps(chunk({'role': 'assistant', 'content': '让我想'}), ensure_ascii=False)}\n\n".encode())
            self.wfile.flush()
            time.sleep(60)
            return
        for c in plan(body):
            if isinstance(c, float):
                time.sleep(c)
                continue
            self.wfile.write(f"data: {json.dumps(c, ensure_ascii=False)}\n\n".encode())
            self.wfile.flush()
        usage = {"id": "chatcmpl-e2e", "object": "chat.completion.chunk", "choices": [],
                 "usage": {"prompt_tokens": 12, "completion_tokens": 7, "total_tokens": 19}}
        self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())

    def log_message(self, *args):
        pass


def start():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.requests = []
    server.speech = []
    server.cut_done = False
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
