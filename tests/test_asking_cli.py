"""`refbot select --ask` on the demo world: the real small model behind llama.cpp's server writes the candidates,
the demo's Oxigraph store and Wikibase stand-in answer; and a saved query is a worklist for `--query`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.asking.ask import Asker
from bot.asking.fragment import defining_triples
from bot.asking.linking import Link
from bot.asking.questions import save, worklist_properties
from bot.asking.safety import check
from bot.demo.world import DemoWorld
from bot.judge.prompts import ASK_SPARQL
from bot.judge.scripted import ScriptedBackend
from bot.selection.endpoint import SparqlEndpoint
from conftest import ROOT

QUESTION = "awards of people educated at Charles University that cite nothing"  # "people" links to nothing here
READ_WHOLE = "those educated at Charles University whose awards cite nothing"  # each word read by the draft


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("demo")) as running:
        yield running


def refbot(tmp_path: Path, world: DemoWorld, *args: str, judge_url: str = "",
           take_complete_draft: bool = True) -> subprocess.CompletedProcess:
    ini = tmp_path / "refbot.ini"
    ini.write_text(
        "[refbot]\ncontact = refbot-tests@example.org\n"
        f"[sparql]\nendpoint = {world.sparql_url}\n"
        f"[wikidata]\napi_url = {world.base('wikidata')}/w/api.php\n"
        f"[properties]\ncache = {tmp_path / 'properties'}\n"
        f"[judge]\nbackend = openai\nurl = {judge_url or 'http://127.0.0.1:9/v1'}\n"
        f"[ask]\ntake_complete_draft = {'yes' if take_complete_draft else 'no'}\n"
        "[fetch]\nallow_addresses = 127.0.0.1\n", encoding="utf-8")
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    environ["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "bot.cli", "--config", str(ini), *args], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, env=environ)


@pytest.mark.model
def test_select_ask_links_the_question_and_shows_every_candidate_with_the_test_model(world, llama_server, tmp_path):
    result = refbot(tmp_path, world, "select", "--ask", QUESTION, "--explain", "--candidates", "2",
                    judge_url=llama_server.url, take_complete_draft=False)
    assert result.returncode in (0, 1), result.stderr
    out = result.stdout
    terms = out.split("== fragment shown to the model ==")[0]
    assert re.search(r"property +P166 +award received +← \"awards\" \(1\.00, needs a reference\)", terms), out
    assert re.search(r"property +P69 +educated at +← \"educated at\"", terms)
    assert re.search(r"entity +Q990215 +Charles University +← \"Charles University\"", terms)
    assert "item Q990215 \"Charles University\"" in out
    draft = out.split("== draft the model started from ==\n", 1)[1].split("== candidates ==")[0]
    expected = ["?item wdt:P69 wd:Q990215 .", "?item p:P166 ?statement ."]
    assert [line.strip() for line in draft.splitlines()][1:3] == expected, draft
    numbers = [int(n) for n in re.findall(r"^  (\d)\. ", out, re.MULTILINE)]
    assert numbers in ([1], [1, 2], [1, 2, 0]), \
        "the first candidate alone when it returned the draft's items; else two, then the draft when neither had any"
    if numbers == [1]:
        assert re.search(r"returned the \d+ item\(s\) of the draft built from the linked terms", out), out
    if numbers[-1] == 0:
        assert re.search(r"^  0\. the draft \d+ item\(s\)", out, re.MULTILINE), out
    assert re.search(r"== \d+ prompt and \d+ completion tokens", out)
    if result.returncode == 0:  # a query was chosen: it is printed as sent, and it passed the checker
        sent = out.split("# chosen: ", 1)[1].split("\n", 1)[1].split("\n\n", 1)[0]
        assert sent.rstrip().endswith("LIMIT 500") and "SERVICE" not in sent.upper()
        check(sent, limit=500, known=set(re.findall(r"\b[PQ]\d+\b", terms)) | {"P31", "P279"})
    else:
        assert "refbot select: no query:" in result.stderr


def test_a_question_its_draft_reads_whole_is_answered_without_the_model(world, tmp_path):
    """Each word of READ_WHOLE is a linked term the draft writes, glue, or "cite nothing": the draft is the answer,
    and the judge's server (nothing listens on its port) is never needed. QUESTION's "people" is read by no term of
    the demo world: that question goes to the model (below)."""
    saved = tmp_path / "asked" / "awards.rq"
    result = refbot(tmp_path, world, "select", "--ask", READ_WHOLE, "--explain", "--save", str(saved))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert re.search(r"^  0\. the draft 1 item\(s\)  ← chosen$", out, re.MULTILINE), out
    assert "== 0 prompt and 0 completion tokens" in out
    assert "# chosen: the draft built from the linked terms reads every word of the question: no candidate written; " \
           "1 item(s)" in out
    assert "wd:Q990215" in out and "p:P166" in out
    header = saved.read_text(encoding="utf-8").splitlines()[1]
    assert header.startswith("# Written by refbot's draft from the linked terms"), header
    kept = json.loads(saved.with_suffix(".json").read_text(encoding="utf-8"))
    assert kept["model"] is None and kept["chosen"] == 0


def test_a_saved_answer_is_a_query_file_for_select_query_with_its_record(world, tmp_path):
    endpoint = SparqlEndpoint(world.sparql_url, "refbot/test (ops@example.org)", timeout=10.0, retries=0)
    links = [Link("property", "P166", "award received", "", "awards", 1.0, True),
             Link("property", "P69", "educated at", "", "educated at", 1.0, True),
             Link("entity", "Q990215", "Charles University", "", "Charles University", 1.0)]
    written = ("```sparql\nSELECT DISTINCT ?item WHERE {\n  ?item wdt:P69 wd:Q990215 .\n  ?item p:P166 ?statement .\n"
               "  ?statement wikibase:rank ?rank .\n  FILTER(?rank != wikibase:DeprecatedRank)\n"
               "  FILTER NOT EXISTS { ?statement prov:wasDerivedFrom ?reference . }\n}\n```")
    answer = Asker(ScriptedBackend(completions=[written]), endpoint, ASK_SPARQL, candidates=1, limit=500).ask(
        QUESTION, links, defining_triples(endpoint, ["Q990215"], "en"))
    assert answer.chosen is not None and answer.chosen.items, answer.why
    assert worklist_properties(answer) == ["P166"], "the statements the question is about, not its filters"
    query, beside = save(answer, tmp_path / "asked" / "awards.rq", model="scripted")
    assert query.read_text(encoding="utf-8").startswith(f"# {QUESTION}\n")
    kept = json.loads(beside.read_text(encoding="utf-8"))
    assert kept["question"] == QUESTION and kept["chosen"] == 1 and kept["candidates"][0]["items"] == len(
        answer.chosen.items)

    listed = refbot(tmp_path, world, "select", "--query", str(query), "--property", "P166", "--json")
    assert listed.returncode == 0, listed.stderr
    statements = [json.loads(line) for line in listed.stdout.splitlines()]
    assert statements and {s["item"] for s in statements} <= set(answer.chosen.items)
    assert {s["property"] for s in statements} == {"P166"}


@pytest.mark.model
def test_run_ask_checks_the_unsourced_statements_of_the_chosen_querys_items(world, llama_server, tmp_path):
    """`refbot run --ask`: the question's query (written by the test model from the draft) is the run's worklist;
    the statements checked are its items' statements of the property the question is about, in a valid trace,
    and asking again resumes the same run."""
    from bot.output import trace as traces
    from bot.options import ini_text

    ini = tmp_path / "refbot.ini"
    ini.write_text(ini_text(world.options() | {
        "judge_backend": "openai", "judge_url": llama_server.url, "properties_cache": str(tmp_path / "properties"),
        "check_reports": str(tmp_path / "reports"), "run_ledger": str(tmp_path / "reports" / "runs.sqlite"),
        "ask_take_complete_draft": "false"}), encoding="utf-8")
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    environ["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "bot.cli", "--config", str(ini), "run", "--ask", QUESTION, "--candidates", "1"]
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=environ)
    assert first.returncode == 0, first.stderr
    chosen = first.stdout.split("# chosen: ", 1)[1]
    why = chosen.split("; ", 1)[0]
    drafted = why.endswith("so the draft built from the linked terms")
    assert why == "the only candidate that returned items" or drafted, first.stdout
    sent = chosen.split("\n", 1)[1].split("\n\n", 1)[0]
    assert "wd:Q990215" in sent and "p:P166" in sent
    assert re.search(r"run \d+: [1-9]\d* statement\(s\) checked", first.stdout), first.stdout
    xml = Path(re.search(r"^trace: (.+)$", first.stdout, re.MULTILINE).group(1))
    checked = traces.read(xml).findall(".//{*}statement")
    assert checked and {s.get("property") for s in checked} == {"P166"}
    assert {s.getparent().get("id") for s in checked} == {"Q990201"}, "the one alumna with unsourced awards"
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=environ)
    assert again.returncode == 0 and "0 to check" in again.stderr, again.stderr


@pytest.mark.parametrize("generator,take", [("judge", False), ("auto", False), ("auto", True)])
def test_run_ask_loads_each_model_once_for_the_question_and_the_run(world, tmp_path, monkeypatch, capsys, generator,
                                                                    take):
    """The question's candidates and the run's judgements: with ``[ask] generator = judge`` one backend, built once;
    by default (auto) with an in-process judge, llama.cpp on the model's GGUF writes and transformers judges, each
    loaded once (bot.wiring); with the question's complete draft taken, llama.cpp is not loaded at all."""
    from bot.cli import main
    from bot.options import ini_text

    writes = "```sparql\nSELECT ?item WHERE { ?item wdt:P69 wd:Q990215 }\n```"
    built: list[ScriptedBackend] = []
    loaded: list[tuple] = []

    def backend(options):
        model = ScriptedBackend(support=0.95, logprobs=lambda prefix, continuation: [0.0] * len(continuation.split()),
                                completions=writes)
        built.append(model)
        return model

    def llama(path, **settings):
        loaded.append((path, settings))
        return ScriptedBackend(completions=writes, model_id=path.name)
    monkeypatch.setattr("bot.wiring.make_backend", backend)
    monkeypatch.setattr("bot.wiring.LlamaBackend", llama)
    for name in [name for name in os.environ if name.startswith("REFBOT_")]:
        monkeypatch.delenv(name)
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")  # the catalogue's file stands for the weights the fake loader never reads
    ini = tmp_path / "refbot.ini"
    ini.write_text(ini_text(world.options() | {
        "properties_cache": str(tmp_path / "properties"), "check_reports": str(tmp_path / "reports"),
        "run_ledger": str(tmp_path / "reports" / "runs.sqlite"), "check_embeddings": "false",
        "judge_backend": "transformers", "judge_model": str(gguf), "ask_generator": generator,
        "ask_take_complete_draft": str(take).lower()}), encoding="utf-8")
    code = main(["--config", str(ini), "-q", "run", "--ask", READ_WHOLE if take else QUESTION, "--candidates", "1"])
    out = capsys.readouterr().out
    assert code == 0 and "wd:Q990215" in out and re.search(r"run 1: [1-9]\d* statement\(s\) checked", out), out
    assert len(built) == 1, "one judge model for the question and the run"
    if take:
        assert not loaded and not built[0].asked("complete") and "reads every word of the question" in out
    elif generator == "judge":
        assert not loaded and built[0].asked("complete") and built[0].asked("choose"), "it wrote and judged"
    else:
        assert [path for path, _ in loaded] == [gguf], "one llama.cpp, loaded once"
        assert not built[0].asked("complete"), "the judge's model judged; llama.cpp wrote the query"
