"""How long the `openai` judge backend waits on a server that refuses (429 with Retry-After): a recording server
on 127.0.0.1 stands in for vLLM; the judge is built by make_judge, as a run builds it."""

from __future__ import annotations

import json
import time

import pytest

from bot.datamodel import Claim
from bot.errors import BackendUnavailable
from bot.options import Options
from bot.wiring import Wiring
from servers import Reply


def busy(retry_after: str):
    """A server that lists the model it serves (the judge checks the named model at start) and refuses every
    judgement with 429 and this Retry-After."""
    def script(request):
        if request.path.endswith("/models"):
            return Reply(200, json.dumps({"object": "list", "data": [{"id": "served", "object": "model"}]}),
                         {"Content-Type": "application/json"})
        return Reply(429, "Too Many Requests", {"Retry-After": retry_after})
    return script


CLAIM = Claim("Marie Curie", "award received", "Nobel Prize in Physics")
SNIPPET = "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel."


@pytest.mark.timeout(60)
def test_a_server_asking_to_wait_a_day_fails_the_judgement_within_seconds_naming_it(recording_server):
    recording_server.script = busy("100000")
    url = f"{recording_server.url}/v1"
    options = Options.flat(judge_backend="openai", judge_url=url, judge_model="served",
                           judge_context=2048, judge_retries=2, judge_timeout=0.5, justify=False)
    judge = Wiring(options).judge
    started = time.monotonic()
    with pytest.raises(BackendUnavailable) as raised:
        judge.judge(CLAIM, SNIPPET)
    elapsed = time.monotonic() - started
    assert str(raised.value).startswith(f"the LLM server at {url}/chat/completions kept answering HTTP 429 "
                                        "(Retry-After: 100000): Too Many Requests (")
    assert raised.value.url == f"{url}/chat/completions"
    assert elapsed < 20
    chats = [request.started for request in recording_server.requests if request.path.endswith("/chat/completions")]
    assert len(chats) == 3  # the first try and two retries
    # Each wait is the server's Retry-After cut to the judge's timeout (0.5 s), not a day.
    assert all(0.4 <= later - earlier < 5 for earlier, later in zip(chats, chats[1:]))


@pytest.mark.timeout(60)
def test_each_wait_a_server_asks_for_is_said_once_naming_the_server_and_the_seconds(recording_server, caplog):
    recording_server.script = busy("100000")
    url = f"{recording_server.url}/v1"
    options = Options.flat(judge_backend="openai", judge_url=url, judge_model="served",
                           judge_context=2048, judge_retries=2, judge_timeout=0.5, justify=False)
    with caplog.at_level("WARNING"), pytest.raises(BackendUnavailable):
        Wiring(options).judge.judge(CLAIM, SNIPPET)
    said = [record.getMessage() for record in caplog.records if record.levelname == "WARNING"]
    assert said == [f"refbot: the LLM server at {url}/chat/completions answered HTTP 429 with Retry-After: 100000; "
                    "waiting 0.5 s before trying again"] * 2, "one warning per wait: two retries, two waits"


@pytest.mark.timeout(120)
def test_refbot_judge_says_on_standard_error_that_it_waits_on_the_server(recording_server, tmp_path):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    recording_server.script = busy("2")
    url = f"{recording_server.url}/v1"
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    environ |= {"PYTHONPATH": str(ROOT), "REFBOT_JUDGE_BACKEND": "openai", "REFBOT_JUDGE_URL": url,
                "REFBOT_JUDGE_MODEL": "served", "REFBOT_JUDGE_CONTEXT": "2048", "REFBOT_JUDGE_RETRIES": "1"}
    result = subprocess.run([sys.executable, "-m", "bot.cli", "judge", "Marie Curie", "award received",
                             "Nobel Prize in Physics", SNIPPET], cwd=tmp_path, env=environ, capture_output=True,
                            text=True, timeout=100)
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert lines[0] == (f"refbot: the LLM server at {url}/chat/completions answered HTTP 429 with Retry-After: 2; "
                        "waiting 2 s before trying again"), result.stderr
    assert lines[1].startswith("refbot: error: the LLM server at") and "Retry-After" not in "".join(lines[2:])
