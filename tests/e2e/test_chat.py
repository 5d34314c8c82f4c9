"""Chat in the real window against a scripted model server on loopback: a
parent configures the provider (the key goes to the keyring), tests the
connection, and a question streams back with a tool card and the todo list."""
import model_server
from ui import click, css, fill, set_up_family, shot, tid, unlock_parent, visible, wait
from selenium.webdriver.support.ui import Select


def test_provider_settings_and_a_streamed_chat(app):
    drv = app
    server = model_server.start()
    try:
        set_up_family(drv, parent="爸爸", pin="1357", child="小红")
        unlock_parent(drv, "爸爸", "1357")
        click(drv, tid("tab-settings"))
        Select(visible(drv, tid("llm-provider"))).select_by_value("custom")
        fill(drv, "llm-model", "scripted")
        fill(drv, "llm-base-url", f"http://127.0.0.1:{server.server_port}/v1")
        fill(drv, "llm-key", "sk-e2e-secret-key")
        click(drv, tid("llm-save"))
        visible(drv, tid("llm-key-saved"))
        click(drv, tid("llm-test"))
        assert "pong" in visible(drv, tid("llm-test-result")).text
        shot(drv, "chat-01-settings")

        click(drv, tid("open-chat"))
        visible(drv, tid("chat-screen"))
        fill(drv, "chat-input", "静夜思是什么意思？")
        click(drv, tid("chat-send"))
        wait(drv, lambda d: model_server.ANSWER in d.find_element(*tid("assistant-message")).text)
        card = visible(drv, tid("tool-card"))
        assert card.get_attribute("data-status") == "completed"
        assert "write_todos" in card.text
        assert visible(drv, tid("todo-item")).get_attribute("data-status") == "completed"
        shot(drv, "chat-02-answer")
        # The key went to the keyring, not to the model's requests' bodies or the page.
        assert all("sk-e2e-secret-key" not in str(r) for r in server.requests)
        assert "sk-e2e-secret-key" not in drv.page_source
    finally:
        server.shutdown()
