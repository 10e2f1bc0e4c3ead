"""The judge through a real vLLM server: vLLM's CPU build (.venv-vllm, `scripts/setup --vllm`) serving SmolLM2-135M,
a Llama model, started by `refbot serve-judge` on 127.0.0.1."""

from __future__ import annotations

import configparser
import dataclasses
import time
from pathlib import Path

import pytest
import requests

from bot import modelstore
from bot.datamodel import Claim, Relation
from bot.errors import BackendUnavailable, JudgeError
from bot.judge.engine import Judge
from bot.judge.openai_backend import OpenAIBackend, make_session
from bot.judge.prompts import REFBOT
from bot.judge.vllm_server import SERVER_MODULE
from conftest import TOLERANCES, start_vllm_server

pytestmark = [pytest.mark.model, pytest.mark.slow]

BORN = Claim("Marie Curie", "place of birth", "Warsaw", alternatives=(Relation("place of death", "", ""),))
CASES = [
    (BORN, "Maria Skłodowska, later Marie Curie, was born in Warsaw on 7 November 1867, the youngest of five."),
    (Claim("Marie Curie", "award received", "Nobel Prize in Physics"),
     "In 1903 Marie Curie shared the Nobel Prize in Physics with Pierre Curie and Henri Becquerel."),
    (Claim("Vltava footbridge", "located in", "Dolní Mlýn"),
     "The Vltava footbridge in Dolní Mlýn, 271 m long, was opened by the mayor Jana Kubelková in 2011."),
    (Claim("Marie Curie", "place of death", "Warsaw"),
     "Marie Curie died in 1934 at the sanatorium of Sancellemoz, far from Warsaw where she was born."),
]


@pytest.fixture(scope="module")
def local_smollm(vllm_server):
    """The same weights in-process (transformers), in the arithmetic the server computes in, to compare with."""
    from bot.judge.transformers_backend import TransformersBackend

    path = modelstore.resolve("smollm2-135m", modelstore.default_cache(), transformers=True)
    if not (path / "config.json").is_file():
        pytest.fail("SmolLM2-135M's transformers copy is missing: `refbot models fetch smollm2-135m --transformers`")
    return TransformersBackend(path, dtype=vllm_server.dtype)


def test_serve_judge_serves_the_model_under_its_name_with_the_flags_refbot_relies_on(vllm_server):
    printed = configparser.ConfigParser()
    printed.read_string(vllm_server.judge_lines)
    assert dict(printed["judge"]) == {"backend": "openai", "url": vllm_server.url, "model": "smollm2-135m",
                                      "context": "2048", "in_flight": "4"}
    served = requests.get(f"{vllm_server.url}/models", timeout=10).json()["data"]
    assert [(model["id"], model["max_model_len"], model["owned_by"]) for model in served] == [
        ("smollm2-135m", 2048, "vllm")]
    metrics = requests.get(f"http://127.0.0.1:{vllm_server.port}/metrics", timeout=10).text
    assert 'enable_prefix_caching="True"' in metrics
    backend = OpenAIBackend(make_session(), vllm_server.url)
    assert backend.model_id == "smollm2-135m" and backend.context_tokens() == 2048
    assert 3 <= backend.count_tokens("Marie Curie won a Nobel Prize.") <= 12
    assert backend.render(REFBOT.messages(*CASES[0])).endswith("<|im_start|>assistant\n")


def test_yes_no_scoring_agrees_with_the_same_weights_in_process(vllm_server, local_smollm):
    tolerance = TOLERANCES[vllm_server.dtype]
    served = OpenAIBackend(make_session(), vllm_server.url)
    for claim, text in CASES:
        messages = REFBOT.messages(claim, text)
        remote, local = served.choose(messages, ("yes", "no")), local_smollm.choose(messages, ("yes", "no"))
        assert set(remote.probabilities) == {"yes", "no"}
        assert remote.probabilities["yes"] == pytest.approx(local.probabilities["yes"], abs=tolerance.probability), \
            (claim, vllm_server.dtype)
        assert remote.prompt_tokens > 20


def test_relation_comparison_by_echoed_log_probabilities_and_by_the_first_token(vllm_server, local_smollm):
    """What the judge relies on, in the arithmetic the server computes in (float32, or bfloat16 where the CPU
    multiplies it natively): the relations ranked the same way by every route to their log-probabilities, and each
    number within what the arithmetic lets two computations of it differ by (``conftest.TOLERANCES``)."""
    tolerance = TOLERANCES[vllm_server.dtype]
    echoing = OpenAIBackend(make_session(), vllm_server.url)
    prefix = echoing.render(REFBOT.messages(*CASES[0]))
    assert prefix
    continuations = (" was born in Warsaw", " died in Warsaw")
    echoed = echoing.continuation_logprobs(prefix, continuations, rendered=True)
    local = local_smollm.continuation_logprobs(prefix, continuations, rendered=True)
    for remote_scores, local_scores in zip(echoed.logprobs, local.logprobs):
        assert len(remote_scores) == len(local_scores) >= 3
        assert sum(remote_scores) == pytest.approx(sum(local_scores), abs=tolerance.phrase), vllm_server.dtype
    for scored in (echoed, local):
        born, died = (sum(scores) for scores in scored.logprobs)
        assert born - died > 2 * tolerance.phrase, "the text says born, by more than the arithmetic could move"
    # [judge] echo = false: each relation by its first word, from the generated token's log-probabilities; on the
    # judge's own summary prefix those are the echoed first tokens' log-probabilities, computed in another batch
    summary = f'Text: "{CASES[0][1]}"\n\nIn summary, Marie Curie'
    echoed = echoing.continuation_logprobs(summary, continuations)
    first = OpenAIBackend(make_session(), vllm_server.url, echo=False).continuation_logprobs(summary, continuations)
    assert [len(scores) for scores in first.logprobs] == [1, 1]
    for by_first, by_echo in zip(first.logprobs, echoed.logprobs):
        assert by_first[0] == pytest.approx(by_echo[0], abs=tolerance.token), vllm_server.dtype
    for scored in (first, echoed):
        born, died = (scores[0] for scores in scored.logprobs)
        assert born - died > 2 * tolerance.token, "the text says born, by more than the arithmetic could move"
    # the judge's comparison, with phrases that differ in their first word (what echo = false can tell apart)
    phrased = dataclasses.replace(BORN, predicate_phrase="was born in",
                                  alternatives=(Relation("place of death", "", "died in"),))
    for echo in (True, False):
        judgement = Judge(OpenAIBackend(make_session(), vllm_server.url, echo=echo), REFBOT,
                          justify=False).judge(phrased, CASES[0][1])
        assert [compared.label for compared in judgement.compared] == ["place of birth", "place of death"]
        assert judgement.compared[0].share > 0.9, f"echo = {echo}: the text says born ({judgement.compared})"
        assert 0.0 <= judgement.support <= 1.0


def test_the_questions_about_one_paragraph_read_it_from_the_servers_prefix_cache(vllm_server):
    """The comparison continues the question's own rendered prompt: without echoed prompt log-probabilities (which
    vLLM computes past its cache) the server reads the paragraph once."""
    backend = OpenAIBackend(make_session(), vllm_server.url, echo=False)
    judge = Judge(backend, REFBOT, justify=False)
    claim, text = CASES[0]
    text = f"{text} She studied in the clandestine Flying University and later moved to Paris to study physics."
    queried, hit = (vllm_server.metric("vllm:prefix_cache_queries_total"),
                    vllm_server.metric("vllm:prefix_cache_hits_total"))
    judgement = judge.judge(claim, text)
    assert len(judgement.compared) == 2
    queried = vllm_server.metric("vllm:prefix_cache_queries_total") - queried
    hit = vllm_server.metric("vllm:prefix_cache_hits_total") - hit
    assert hit >= 32 and hit / queried > 0.3, (hit, queried)
    assert 0 < judgement.prompt_tokens < queried, "tokens the cache held are not counted as read"


def test_a_paragraph_longer_than_the_context_is_split_and_an_oversized_request_is_named(vllm_server):
    claim, text = CASES[1]
    sentence = "Sentence {} tells of the laboratory's history in Paris and its many visitors."
    # refbot sizes its parts by the context it is given (here 500 tokens): each part is read, none is cut
    backend = OpenAIBackend(make_session(), vllm_server.url, context_tokens=500)
    long_text = " ".join(sentence.format(n) for n in range(50)) + " " + text
    judgement = Judge(backend, dataclasses.replace(REFBOT, focus=False), justify=False).judge(claim, long_text)
    assert judgement.parts > 1 and judgement.prompt_tokens > 500
    # a request past the server's own context (2048) is refused by vLLM, and the error names the server
    longer = " ".join(sentence.format(n) for n in range(180)) + " " + text
    with pytest.raises(JudgeError, match=rf"{vllm_server.url}/chat/completions refused the request: HTTP 400"):
        OpenAIBackend(make_session(), vllm_server.url).choose(REFBOT.messages(claim, longer), ("yes", "no"))


def _vllm_processes(port: int) -> list[int]:
    """vLLM server processes listening on ``port`` (their command line names the module and the port)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if SERVER_MODULE.encode() in argv and str(port).encode() in argv:
            found.append(int(entry.name))
    return found


def test_two_servers_share_the_requests_and_one_restarted_mid_run_is_used_again(vllm_servers, tmp_path):
    vllm_server, second = vllm_servers
    try:
        session = make_session(retries=1, backoff_s=0.01)
        backend = OpenAIBackend(session, [vllm_server.url, second.url], max_in_flight=1)
        judge = Judge(backend, REFBOT, justify=False)
        claims = [Claim(f"Person {n}", "award received", "Nobel Prize in Physics") for n in range(12)]
        text = CASES[1][1].replace("Marie Curie", "{}")
        done: dict[int, float] = {}

        def tasks():
            for n, claim in enumerate(claims):
                if n == 6:
                    assert second.stop() == 0, "serve-judge stops cleanly on SIGTERM"
                    deadline = time.monotonic() + 15
                    while _vllm_processes(second.port) and time.monotonic() < deadline:
                        time.sleep(0.2)
                    assert not _vllm_processes(second.port), "vLLM stopped with it"
                yield n, claim, text.format(claim.subject)

        with pytest.raises(BackendUnavailable, match=f"127.0.0.1:{second.port}"):
            for key, judgement in judge.judge_all(tasks()):
                done[key] = judgement.support
        # the run stops: no task starts after the error, those in flight on the live server finish and are kept (the
        # 8th may have started before the 7th reached the stopped server), the one sent to the stopped server is lost
        assert done and len(done) < len(claims), done
        restarted = start_vllm_server(tmp_path / "again.log", port=second.port)
        second = restarted
        again = Judge(OpenAIBackend(make_session(), [vllm_server.url, second.url], max_in_flight=1), REFBOT,
                      justify=False)
        rest = dict(again.judge_all((n, claim, text.format(claim.subject)) for n, claim in enumerate(claims)
                                    if n not in done))
        assert not set(done) & set(rest) and sorted(set(done) | set(rest)) == list(range(12))
        repeated = dict(again.judge_all((n, claims[n], text.format(claims[n].subject)) for n in sorted(done)))
        for key, support in done.items():
            assert repeated[key].support == pytest.approx(support, abs=TOLERANCES[vllm_server.dtype].probability), \
                "both servers judge alike"
    finally:
        second.stop()


def test_doctor_checks_the_configured_vllm_server(vllm_server, tmp_path):
    from bot.doctor import OK, diagnose

    config = tmp_path / "refbot.ini"
    config.write_text(vllm_server.judge_lines)
    found = {finding.check: finding for finding in diagnose(config, {})}
    assert found["judge"].state == OK, found["judge"]
    assert found["judge"].detail == (f"openai server at {vllm_server.url} serves smollm2-135m: context 2048 tokens, "
                                     "log-probabilities of the answer given; vLLM, prefix caching on")
    config.write_text(vllm_server.judge_lines.replace("model = smollm2-135m", "model = llama-3.1-8b-instruct"))
    found = {finding.check: finding for finding in diagnose(config, {})}
    assert found["judge"].state == "fail"
    assert "does not serve llama-3.1-8b-instruct (it serves smollm2-135m)" in found["judge"].detail


def test_the_demo_worlds_item_is_checked_through_vllm_to_the_outcomes_its_pages_allow(vllm_server, tmp_path, capsys):
    """`refbot check` on the demo world with the judge behind vLLM. SmolLM2 is a plumbing model, so the threshold
    is pinned at 0 (every paragraph asked about supports, as in test_demo): what vLLM must carry is every question
    of a real check — yes/no, relations compared, the words naming an item — and the trace must name its model."""
    from bot.cli import main
    from bot.demo.world import DemoWorld
    from bot.options import ini_text
    from bot.output import trace as traces

    ns = {"t": traces.NS}
    (tmp_path / "store").mkdir()
    with DemoWorld(workdir=tmp_path / "store") as world:
        settings = world.options() | {"judge_backend": "openai", "judge_url": vllm_server.url,
                                      "judge_model": "smollm2-135m", "threshold": 0.0,
                                      "check_reports": str(tmp_path / "reports"),
                                      "run_ledger": str(tmp_path / "reports" / "runs.sqlite")}
        config = tmp_path / "refbot.ini"
        config.write_text(ini_text(settings), encoding="utf-8")
        code = main(["--config", str(config), "--quiet", "check", "Q990201"])
        cases = {guid: case for guid, case in world.expected().items() if case["item"] == "Q990201"}
    out = capsys.readouterr().out
    assert code == 0, out
    xml = Path(next(line for line in out.splitlines() if line.startswith("trace: "))[len("trace: "):])
    tree = traces.read(xml)
    found = {s.get("guid"): s for s in tree.iterfind("t:item/t:statement", ns)}
    assert set(found) == set(cases)
    for guid, case in cases.items():
        wanted = case["expected"] if case["expected"] in ("irretrievable", "corroborated") else "supported"
        assert found[guid].get("outcome") == wanted, (guid, found[guid].findtext("t:reason", namespaces=ns))
    asked = tree.findall(".//t:judgement[@asked='true']", ns)
    assert asked, "the model was asked"
    assert any(len(j.findall("t:compared", ns)) >= 2 for j in asked), "relations were compared through vLLM"
    judge = tree.find(".//t:judge", ns)
    assert (judge.get("backend"), judge.get("model")) == ("openai", "smollm2-135m")
