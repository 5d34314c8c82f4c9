"""A photo of homework in the real window: a parent sets the scripted model
server up as the model, the child picks a photo of a worksheet (a small PNG
made here) with the camera button, and the homework card shows the wrong
question with its hint; 再给个提示 brings the explanation, never the answer.
The model was sent the photo as an image part."""
import struct
import zlib

import model_server
from selenium.webdriver.remote.file_detector import UselessFileDetector
from ui import click, configure_model, open_profile, shot, tid, visible, wait


def png(width, height):
    """A valid grey PNG of the given size."""
    def part(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes([0x80]) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)  # 8-bit greyscale
    return b"\x89PNG\r\n\x1a\n" + part(b"IHDR", header) + part(b"IDAT", zlib.compress(rows)) + part(b"IEND", b"")


def test_a_photo_of_homework_shows_the_homework_card(app, data_dir):
    drv = app
    # The app runs on this machine: the file input gets the path itself
    # (WebKitWebDriver has no Selenium upload endpoint).
    drv.file_detector = UselessFileDetector()
    server = model_server.start()
    try:
        configure_model(drv, server)
        click(drv, tid("lock-button"))
        open_profile(drv, "child", "小红")
        visible(drv, tid("child-home"))
        # Not a photo: said in plain words, the model never asked.
        notes = data_dir / "notes.png"
        notes.write_bytes("9+8=16".encode())
        drv.find_element(*tid("homework-photo-input")).send_keys(str(notes))
        error = visible(drv, tid("homework-error"))
        assert error.get_attribute("data-code") == "homework.not_an_image"
        assert "不是照片" in error.text
        assert server.requests == []

        sheet = data_dir / "worksheet.png"
        sheet.write_bytes(png(16, 12))
        drv.find_element(*tid("homework-photo-input")).send_keys(str(sheet))
        wait(drv, lambda d: d.find_element(*tid("homework-card")).get_attribute("data-state") == "card")
        card = drv.find_element(*tid("homework-card"))
        assert card.get_attribute("data-step") == "mistake"
        assert drv.find_element(*tid("homework-question")).text == "9+8="
        assert "9 再加几就凑成 10？" in drv.find_element(*tid("homework-hint")).text
        assert "共 3 题：对 2 题，错 1 题" in drv.find_element(*tid("homework-count")).text
        marks = drv.find_elements(*tid("homework-mark"))
        assert [m.get_attribute("data-correct") for m in marks] == ["true", "false", "true"]
        assert "9+8=" in marks[1].text and "16" in marks[1].text
        assert not drv.find_elements(*tid("homework-answer"))
        shot(drv, "homework-01-hint")

        # The model was asked once, with the photo as an image part.
        assert len(server.requests) == 1
        user = next(m for m in server.requests[0]["messages"] if m["role"] == "user")
        urls = [p["image_url"]["url"] for p in user["content"] if p.get("type") == "image_url"]
        assert len(urls) == 1
        assert urls[0].startswith("data:image/png;base64,iVBORw0KGgo"), urls[0][:40]

        # 再给个提示: the explanation; the answer stays hidden (no parent allowed it).
        click(drv, tid("homework-more-hint"))
        explanation = visible(drv, tid("homework-explanation"))
        assert "9+1=10" in explanation.text
        assert not drv.find_elements(*tid("homework-answer"))
        shot(drv, "homework-02-explanation")
        # The photos were handed to the core through files, and removed after.
        assert list((data_dir / "inbox").iterdir()) == []
    finally:
        server.shutdown()
        server.server_close()
