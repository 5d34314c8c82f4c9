"""The official whisper file downloaded from the window, from a mirror on
loopback (DESKMATE_MODELS_MIRROR): Settings shows the bytes as they arrive
(the same download as `deskmate models download`), and a file that does not
match the publisher's SHA-1 is refused in plain words and not installed."""
import http.server
import threading
import time

from ui import click, set_up_family, tid, unlock_parent, visible, wait

SIZE = 3 * 1024 * 1024
FIRST = 1024 * 1024
# The download pauses after the first MiB until the test has seen it.
seen_first = threading.Event()
requests = []


class Mirror(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", str(SIZE))
        self.end_headers()
        self.wfile.write(b"\x07" * FIRST)
        self.wfile.flush()
        seen_first.wait(60)
        self.wfile.write(b"\x07" * (SIZE - FIRST))

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Mirror)
threading.Thread(target=server.serve_forever, daemon=True).start()


def app_env(data_dir):
    # An empty models folder (whisper missing) and the loopback mirror.
    return {
        "DESKMATE_MODELS_DIR": str(data_dir / "models"),
        "DESKMATE_MODELS_MIRROR": f"http://127.0.0.1:{server.server_port}/mirror",
    }


def test_the_window_downloads_whisper_with_its_bytes_and_refuses_a_wrong_file(app, data_dir):
    drv = app
    set_up_family(drv)
    unlock_parent(drv)
    click(drv, tid("tab-settings"))
    row = visible(drv, ("css selector", '[data-testid="model-row"][data-name="whisper-base"]'))
    assert row.get_attribute("data-present") == "false"
    click(drv, ("css selector", '[data-testid="model-row"][data-name="whisper-base"] [data-testid="model-download-official"]'))
    try:
        bar = visible(drv, ("css selector", '[data-testid="model-progress"][data-name="whisper-base"]'))
        wait(drv, lambda d: "1.0 MB / 3.0 MB" in bar.text)
        assert bar.find_element("css selector", '[role="progressbar"]').get_attribute("aria-valuenow") == "33"
    finally:
        seen_first.set()
    # The refusal in the parent's words (the code models.checksum), and the
    # digests under the model's progress.
    error = visible(drv, tid("models-fetch-error"))
    assert "不完整或被改动过" in error.text, error.text
    wait(drv, lambda d: bar.get_attribute("data-phase") == "error")
    assert "sha1" in bar.text, bar.text
    assert requests == ["/mirror/ggml-base.bin"]
    # Nothing was installed, and the row still says so.
    assert not (data_dir / "models" / "official" / "ggml-base.bin").exists()
    time.sleep(0.2)
    row = visible(drv, ("css selector", '[data-testid="model-row"][data-name="whisper-base"]'))
    assert row.get_attribute("data-present") == "false"
    server.shutdown()
