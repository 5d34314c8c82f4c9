"""Files attached to a chat message in the real window: a parent sets the
scripted model server up as the model, opens the chat, attaches a photo of
a page (a small PNG made here) and a note with the file picker, and sends a
question. The scripted model is sent the photo as an image part and told
where both files are in the thread's workspace; the answer streams back.
Takes about 15 s (most of it the window's start)."""
import model_server
from selenium.webdriver.remote.file_detector import UselessFileDetector
from test_homework import png
from ui import click, configure_model, fill, shot, tid, visible, wait


def test_an_attached_photo_reaches_the_vision_model_as_an_image_part(app, data_dir):
    drv = app
    # The app runs on this machine: the file input gets the path itself
    # (WebKitWebDriver has no Selenium upload endpoint).
    drv.file_detector = UselessFileDetector()
    server = model_server.start()
    try:
        # The scripted server needs no key: none goes to the keyring.
        configure_model(drv, server, key=None)
        click(drv, tid("open-chat"))
        visible(drv, tid("chat-screen"))
        page = data_dir / "page.png"
        page.write_bytes(png(20, 14))
        notes = data_dir / "生字.md"
        notes.write_text("# 生字\n床 前 明 月 光\n", encoding="utf-8")
        drv.find_element(*tid("chat-attach")).send_keys(str(page))
        drv.find_element(*tid("chat-attach")).send_keys(str(notes))
        wait(drv, lambda d: len(d.find_elements(*tid("chat-attachment"))) == 2)
        assert [a.text.split(" ×")[0].strip() for a in drv.find_elements(*tid("chat-attachment"))] == ["page.png", "生字.md"]
        shot(drv, "attachments-01-chosen")

        fill(drv, "chat-input", "帮我看看这一页")
        click(drv, tid("chat-send"))
        wait(drv, lambda d: "pong" in d.find_element(*tid("assistant-message")).text)
        assert "附件：page.png, 生字.md" in drv.find_element(*tid("user-message")).text
        assert not drv.find_elements(*tid("chat-attachment"))
        shot(drv, "attachments-02-answered")

        # One model call: the photo as an image part, the words saying where the files are.
        assert len(server.requests) == 1
        user = [m for m in server.requests[0]["messages"] if m["role"] == "user"][-1]
        assert isinstance(user["content"], list), user
        urls = [p["image_url"]["url"] for p in user["content"] if p.get("type") == "image_url"]
        assert len(urls) == 1
        assert urls[0].startswith("data:image/png;base64,iVBORw0KGgo"), urls[0][:40]
        words = " ".join(p.get("text", "") for p in user["content"] if p.get("type") == "text")
        assert "帮我看看这一页" in words
        assert "/attachments/page.png" in words and "/attachments/生字.md" in words, words
    finally:
        server.shutdown()
        server.server_close()
