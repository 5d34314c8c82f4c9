"""Chat in the real window against a scripted model server on loopback: a
parent configures the provider (the key goes to the keyring), tests the
connection, and a question streams back with a tool card and the todo list.
Then the feedback voice: the same server as an OpenAI-compatible speech
service (sent the provider's key), and espeak-ng once it is gone."""
import model_server
from ui import click, configure_model, fill, shot, tid, visible, wait


def test_provider_settings_and_a_streamed_chat(app):
    drv = app
    server = model_server.start()
    try:
        configure_model(drv, server)
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

        # Feedback read by the speech service, with the provider's key.
        click(drv, tid("back-button"))
        click(drv, tid("tab-settings"))
        visible(drv, tid("voice-offline-now"))
        fill(drv, "voice-base-url", f"http://127.0.0.1:{server.server_port}/v1")
        fill(drv, "voice-key-provider", "custom")
        click(drv, tid("voice-save"))
        wait(drv, lambda d: d.find_elements(*tid("voice-message")))
        click(drv, tid("voice-test"))
        wait(drv, lambda d: "语音服务" in d.find_element(*tid("voice-test-result")).text)
        assert len(server.speech) == 1, server.speech
        assert server.speech[0]["body"]["voice"] == "alloy"
        assert server.speech[0]["authorization"] == "Bearer sk-e2e-secret-key"
        shot(drv, "chat-03-voice")
    finally:
        server.shutdown()
        server.server_close()
    # The service is gone. (The Chinese test phrase is cached now, so an
    # English one is asked for.) The offline voice reads it, and the window says why.
    click(drv, tid("locale-en"))
    click(drv, tid("voice-test"))
    wait(drv, lambda d: "offline voice read it" in d.find_element(*tid("voice-test-result")).text)
    result = drv.find_element(*tid("voice-test-result"))
    assert "127.0.0.1" in result.text
    assert "Saved." in drv.find_element(*tid("voice-message")).text
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", result)
    shot(drv, "chat-04-voice-offline")
