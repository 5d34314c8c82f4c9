"""A chat answer cut off by a crash, continued in the real window: a real
`deskmate chat` process (the same data directory) is SIGKILLed while the
scripted model is still answering; the window shows the thread's last run
as cut off with a "continue" button and, to the parent, what the thread
cost; continuing streams the rest of the answer."""
import os
import signal
import subprocess
import time

import model_server
from conftest import REPO
from ui import click, configure_model, shot, tid, visible, wait


def test_a_run_cut_off_by_a_crash_continues_in_the_window(app, data_dir):
    drv = app
    server = model_server.start()
    try:
        configure_model(drv, server)
        cli = subprocess.Popen(
            [str(REPO / "target/debug/deskmate"), "--data-dir", str(data_dir), "chat", "--profile", "爸爸",
             model_server.CUT_QUESTION],
            env=dict(os.environ, DESKMATE_LLM_API_KEY="sk-e2e-secret-key"),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 60
        while not server.cut_done:
            assert time.time() < deadline, "the chat never asked the model"
            assert cli.poll() is None, "the chat process ended by itself"
            time.sleep(0.05)
        time.sleep(0.5)
        cli.send_signal(signal.SIGKILL)
        cli.wait(10)

        click(drv, tid("open-chat"))
        visible(drv, tid("chat-screen"))
        # (textContent: WebKit's rendered text of the list item leaves out its clipped title.)
        wait(drv, lambda d: any(model_server.CUT_QUESTION in t.get_attribute("textContent")
                                for t in d.find_elements(*tid("thread-item"))))
        item = next(t for t in drv.find_elements(*tid("thread-item"))
                    if model_server.CUT_QUESTION in t.get_attribute("textContent"))
        click_element(drv, item)
        visible(drv, tid("chat-interrupted"))
        # The cut-off call never finished, so nothing was counted yet.
        assert "0 次模型调用" in visible(drv, tid("chat-usage")).text
        shot(drv, "chat-07-cut-off")

        click(drv, tid("chat-continue"))
        wait(drv, lambda d: model_server.CUT_ANSWER in " ".join(m.text for m in d.find_elements(*tid("assistant-message"))))
        assert not drv.find_elements(*tid("chat-continue"))
        # The parent's usage line counts the continued run's model call.
        wait(drv, lambda d: "1 次模型调用" in d.find_element(*tid("chat-usage")).text)
        shot(drv, "chat-08-continued")
        # The same run went on: the model was asked again with the stored thread.
        asked = [r for r in server.requests if model_server.cut_question(r)]
        assert len(asked) == 2, len(asked)
    finally:
        server.shutdown()
        server.server_close()


def click_element(drv, element):
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
