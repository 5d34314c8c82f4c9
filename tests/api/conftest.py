"""The real `deskmate serve` for the API tests: a fresh data directory whose
chat model is the scripted model server of the window tests
(tests/e2e/model_server.py, an OpenAI-compatible server on loopback that
streams scripted replies), the API token read with `--print-token`, and the
server on a free port (read from its first line on stderr)."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
import model_server  # noqa: E402

BIN = os.environ.get("DESKMATE_BIN", str(REPO / "target" / "debug" / "deskmate"))


@pytest.fixture(scope="session")
def model():
    server = model_server.start()
    yield server
    server.shutdown()


@pytest.fixture(scope="session")
def api(tmp_path_factory, model):
    """(url, token, model server, data dir) of a running `deskmate serve`."""
    data = tmp_path_factory.mktemp("data")
    env = dict(os.environ, DESKMATE_DATA_DIR=str(data), DESKMATE_LLM_API_KEY="sk-api-test")
    env.pop("DESKMATE_API_TOKEN", None)
    base = f"http://127.0.0.1:{model.server_port}/v1"
    subprocess.run([BIN, "llm", "set", "--agree", "--model", "openai:scripted", "--base-url", base],
                   env=env, check=True, capture_output=True)
    token = subprocess.run([BIN, "serve", "--print-token"], env=env, check=True,
                           capture_output=True, text=True).stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{64}", token), token
    proc = subprocess.Popen([BIN, "serve", "--port", "0"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        found = re.search(r"http://[0-9.:]+", line)
        assert found, f"deskmate serve said {line!r}"
        yield found.group(0), token, model, data
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def client(api):
    from langgraph_sdk import get_sync_client

    url, token, _, _ = api
    return get_sync_client(url=url, api_key=token)


def wait_for(check, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()
