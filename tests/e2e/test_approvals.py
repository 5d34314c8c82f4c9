"""Human in the loop in the real window: the child's stored chat context
says `write_todos` waits for a parent. The child asks; the scripted model
asks for the tool; the run pauses and the child's chat shows an approval
card. The parent's PIN opens it, the parent approves, and the same run goes
on to the answer."""
import json

import model_server
from ui import cli, click, configure_model, fill, open_profile, shot, tid, visible, wait


def test_a_childs_tool_call_waits_for_the_parents_pin_and_approval(app, data_dir):
    drv = app
    server = model_server.start()
    try:
        configure_model(drv, server)
        cli(data_dir, "llm", "context", "--profile", "小红", json.dumps({"approvals": ["write_todos"]}))
        click(drv, tid("lock-button"))
        open_profile(drv, "child", "小红")
        click(drv, tid("open-chat"))
        visible(drv, tid("chat-screen"))
        fill(drv, "chat-input", "静夜思是什么意思？")
        click(drv, tid("chat-send"))

        # Paused: the card asks for a parent; nothing is decided without the PIN.
        visible(drv, tid("approval-card"))
        assert "write_todos" in drv.find_element(*tid("approval-card")).text
        assert not drv.find_elements(*tid("approval-approve"))
        shot(drv, "chat-09-approval-waiting")
        click(drv, tid("approval-ask-parent"))
        fill(drv, "pin-input", "1357")
        click(drv, tid("pin-submit"))
        click(drv, tid("approval-approve"))

        wait(drv, lambda d: model_server.ANSWER in " ".join(m.text for m in d.find_elements(*tid("assistant-message"))))
        assert not drv.find_elements(*tid("approval-card"))
        shot(drv, "chat-10-approved")
        # The tool ran once approved: the model saw its result, in the same run.
        assert any(m.get("role") == "tool" for r in server.requests for m in r.get("messages", []))
        assert cli(data_dir, "runs", "pending", "--json") == []
    finally:
        server.shutdown()
        server.server_close()
