"""A run driven from Python alone (no argparse), on the demo world: the real SPARQL server (Oxigraph), its sites
on loopback and the real embedding model; the judge's model is scripted (``bot.judge.scripted``), since what is
tested is the run, not the model — except in the documentation's example (docs/development.md, "From Python"),
which runs the real small model behind llama.cpp's OpenAI-compatible server."""

from __future__ import annotations

import os
import re
import sqlite3
import time
from pathlib import Path

import pytest

from bot.demo.world import DemoWorld
from bot.errors import BackendUnavailable, InputError
from bot.judge.loading import ModelUnavailable
from bot.judge.scripted import ScriptedBackend
from bot.options import Options
from bot.output import trace as traces
from bot.output.run_trace import default_stem, run_trace, write_run
from bot.ledger.ledger import RunLedger
from bot.check_run import Run, RunResult
from bot.selection.worklists import Worklist
from bot.wiring import Wiring

NS = {"t": traces.NS}
ITEMS = ["Q990202", "Q990203"]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("store")) as running:
        yield running


@pytest.fixture(scope="module")
def embedder():
    """The real embedding model, loaded once for the module's runs."""
    return Wiring(Options()).embedder


def options_for(world: DemoWorld, tmp_path: Path, **extra) -> Options:
    return Options.flat(**world.options(), check_reports=tmp_path / "reports",
                        run_ledger=tmp_path / "runs.sqlite", check_workers=1, **extra)


def read_off(prefix: str, continuation: str) -> list[float]:
    """A summary's words as a reader of the text would weigh them: a word the text does not write is unlikely."""
    text = prefix.lower()
    return [0.0 if word.lower() in text else -3.0 for word in continuation.split()]


def confirming(support: object = 0.95) -> ScriptedBackend:
    """A model that says yes to every paragraph it is asked about, and prefers the relations the text writes."""
    return ScriptedBackend(support=support, logprobs=read_off)


def written(result: RunResult, ledger: RunLedger, parts: Wiring) -> Path:
    return write_run(run_trace(result, ledger, parts), default_stem(result, parts.options.check.reports, ledger))[0]


def test_a_two_item_run_checks_each_statement_once_keeps_it_in_the_ledger_and_writes_its_trace(
        world, tmp_path, embedder):
    options = options_for(world, tmp_path)
    model = confirming()
    parts = Wiring(options, backend=model, embedder=embedder)
    expected = {guid for guid, case in world.expected().items() if case["item"] in ITEMS}
    seen = []
    with RunLedger(options.run.ledger) as ledger, Run.open(parts, Worklist.of_items(ITEMS), ledger) as run:
        assert not run.resumed and {s.guid for s in run.todo} == expected
        result = run.check(on_progress=seen.append)
        xml = written(result, ledger, parts)

    assert [(progress.done, progress.total) for progress in seen] == [(n, len(expected)) for n in
                                                                      range(1, len(expected) + 1)]
    assert [progress.check.statement.item for progress in seen] == sorted(p.check.statement.item for p in seen)
    assert result.complete and result.left == 0 and result.failure is None
    assert {check.statement.guid for check in result.checked} == expected
    assert sum(result.counts.values()) == len(expected) and result.counts.get("error", 0) == 0
    assert model.asked("choose"), "the judge asked the model about the pages' paragraphs"
    asked_about = {check.statement.guid for check in result.checked if check.asked}
    assert asked_about and {c.statement.guid for c in result.checked if c.outcome.value == "supported"} <= asked_about
    with sqlite3.connect(options.run.ledger) as db:
        checks = db.execute("SELECT guid, outcome FROM checks WHERE run_id = ?", (run.id,)).fetchall()
        finished = db.execute("SELECT finished FROM runs WHERE id = ?", (run.id,)).fetchone()[0]
        items = [row[0] for row in db.execute("SELECT item FROM items WHERE run_id = ? ORDER BY rowid", (run.id,))]
    assert sorted(guid for guid, _ in checks) == sorted(expected) and finished is not None
    assert {guid: outcome for guid, outcome in checks} == {c.statement.guid: c.outcome.value for c in result.checked}
    assert items == ITEMS

    assert xml == tmp_path / "reports" / f"run-{run.id}.xml" and xml.with_suffix(".html").exists()
    tree = traces.read(xml)  # validated against the schema
    run_element = tree.find("t:run", NS)
    assert run_element.get("mode") == "run" and run_element.get("complete") == "true"
    assert [item.get("id") for item in tree.iterfind("t:item", NS)] == ITEMS
    assert sorted(s.get("guid") for s in tree.iterfind("t:item/t:statement", NS)) == sorted(expected)

    # Opened again, the finished run is not resumed, and what it checked rests for [run] recheck_days.
    with RunLedger(options.run.ledger) as ledger, Run.open(parts, Worklist.of_items(ITEMS), ledger) as again:
        assert again.id != run.id and not again.resumed
        assert again.todo == [] and again.skipped == len(expected)


def test_a_run_out_of_time_keeps_what_is_left_for_the_next_one_which_resumes_it(world, tmp_path, embedder):
    options = options_for(world, tmp_path)
    parts = Wiring(options, backend=confirming(), embedder=embedder)
    worklist = Worklist.of_items(ITEMS, properties=["P166"])
    with RunLedger(options.run.ledger) as ledger, Run.open(parts, worklist, ledger) as run:
        todo = [s.guid for s in run.todo]
        result = run.check(time_budget=0)  # spent before the first statement could start
        xml = written(result, ledger, parts)
    assert todo and result.left == len(todo) and not result.complete and result.checked == ()
    assert "time budget spent" in traces.read(xml).find("t:run", NS).findtext("t:note", namespaces=NS)

    first = float(traces.read(xml).find("t:run", NS).get("duration-s"))
    with RunLedger(options.run.ledger) as ledger, Run.open(parts, worklist, ledger) as resumed:
        assert resumed.id == run.id and resumed.resumed and [s.guid for s in resumed.todo] == todo
        started = time.monotonic()
        result = resumed.check()
        assert result.complete
        xml = written(result, ledger, parts)
    # the run's time is both invocations' (opening, selecting and checking), not the last one's alone
    total = float(traces.read(xml).find("t:run", NS).get("duration-s"))
    assert total >= first + (time.monotonic() - started) * 0.99


def test_a_limit_counts_the_statements_finished_before_a_resume(world, tmp_path, embedder):
    options = options_for(world, tmp_path)
    parts = Wiring(options, backend=confirming(), embedder=embedder)
    with RunLedger(options.run.ledger) as ledger:
        with Run.open(parts, Worklist.of_items(ITEMS, limit=2), ledger) as run:
            selected = len(run.selected)
            assert selected > 2 and len(run.todo) == 2
            run.check(time_budget=0)
        with Run.open(parts, Worklist.of_items(ITEMS, limit=2), ledger) as resumed:
            assert resumed.resumed and len(resumed.todo) == 2
            result = resumed.check()
        checked = {check.statement.guid for check in result.checked}
        assert len(checked) == 2 and result.complete, "the run was two statements: it is finished"
        with Run.open(parts, Worklist.of_items(ITEMS, limit=2), ledger) as third:
            assert third.id != run.id and not third.resumed, "a finished run is not resumed"
            assert third.skipped == 2 and len(third.todo) == 2 and not {s.guid for s in third.todo} & checked


def test_a_judge_that_becomes_unavailable_stops_the_run_and_keeps_what_finished(world, tmp_path, embedder):
    options = options_for(world, tmp_path)
    answered = []

    def support(prompt: str) -> float:
        if len(answered) >= 1:
            raise BackendUnavailable("stopped answering", url="http://127.0.0.1:9/v1")
        answered.append(prompt)
        return 0.95
    parts = Wiring(options, backend=confirming(support), embedder=embedder)
    with RunLedger(options.run.ledger) as ledger, Run.open(parts, Worklist.of_items(ITEMS), ledger) as run:
        result = run.check()
        xml = written(result, ledger, parts)
    assert isinstance(result.failure, BackendUnavailable) and not result.complete
    assert result.left > 0 and sum(result.counts.values()) == len(result.checked) < len(run.todo)
    tree = traces.read(xml)
    assert tree.find("t:run", NS).get("complete") == "false"
    assert sorted(s.get("guid") for s in tree.iterfind("t:item/t:statement", NS)) == \
        sorted(check.statement.guid for check in result.checked)
    with RunLedger(options.run.ledger) as ledger:
        resumed = Run.open(Wiring(options, backend=confirming(), embedder=embedder), Worklist.of_items(ITEMS), ledger)
        assert resumed.resumed and len(resumed.todo) == result.left, "the next run checks only what is left"


def test_a_dry_run_keeps_nothing_and_an_item_that_does_not_exist_is_an_input_error(world, tmp_path):
    options = options_for(world, tmp_path)
    model = confirming()
    parts = Wiring(options, backend=model, embedder=None)
    with RunLedger(None) as ledger, Run.open(parts, Worklist.of_items(["Q990299"]), ledger) as run:
        assert run.selected == [] and not run.kept
        with pytest.raises(InputError, match="Q990299 does not exist"):
            run.check()
    assert not options.run.ledger.exists() and model.calls == []
    with pytest.raises(InputError, match="give item ids"):
        Worklist.of_items(["Q990202", "P31"])


@pytest.mark.model
def test_the_documented_python_example_runs_as_written(world, tmp_path, llama_server, monkeypatch, capsys):
    from bot.options import ini_text
    from conftest import ROOT

    page = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    example = re.search(r"^## From Python\n.*?```python\n(.*?)```", page, re.S | re.M).group(1)
    settings = world.options() | {"judge_backend": "openai", "judge_url": llama_server.url, "threshold": 0.0,
                                  "check_reports": str(tmp_path / "reports"),
                                  "run_ledger": str(tmp_path / "runs.sqlite")}
    (tmp_path / "refbot.ini").write_text(ini_text(settings), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in [name for name in os.environ if name.startswith("REFBOT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("REFBOT_CHECK_WORKERS", "1")
    exec(compile(example, "docs/development.md", "exec"), {})
    out = capsys.readouterr().out
    expected = sorted(guid for guid, case in world.expected().items() if case["item"] in ITEMS)
    assert f"run 1: {len(expected)} statement(s) to check" in out
    assert sorted(re.findall(r"^\d/\d (\S+) ", out, re.M)) == expected
    assert re.search(r"^\d+ supported(, \d+ corroborated)?(, \d+ contradicted)?(, \d+ undecided)?(, \d+ not found)?"
                     r"(, \d+ irretrievable)? \(0 left\)", out, re.M), out  # (no "0 error", no "not-found")
    assert (tmp_path / "reports" / "run-1.xml").exists() and (tmp_path / "reports" / "run-1.html").exists()


def test_an_item_list_is_read_no_further_than_the_limit_or_the_time_budget_goes(world, tmp_path, embedder):
    """A list of items (`run --items FILE`) is read as a stream: with a limit the run reads the list only until it has
    the statements it may check, and with its time budget spent while reading it, stops reading, is left unfinished
    and says so. Neither reads to a line far down the list (here one that is not an item, which a reading of the
    whole list refuses)."""
    listing = tmp_path / "items.txt"
    far = [f"Q{number}" for number in range(1, 200_000)]
    far[150_000] = "not an item"
    listing.write_text("\n".join([*ITEMS, *far]) + "\n", encoding="utf-8")
    options = options_for(world, tmp_path)
    parts = Wiring(options, backend=confirming(), embedder=embedder)
    with RunLedger(options.run.ledger) as ledger:
        with Run.open(parts, Worklist.from_file(listing, limit=1), ledger) as run:
            assert len(run.todo) == 1 and run.todo[0].item == ITEMS[0]
            assert run.reached[:2] == ITEMS and len(run.reached) < 1000, "read past the limit's statements"
            result = run.check()
        assert result.complete and len(result.checked) == 1 and not result.unread

        worklist = Worklist.from_file(listing)
        with Run.open(parts, worklist, ledger, time_budget=0) as run:
            assert run.unread and len(run.reached) < 1000 and {s.item for s in run.todo} <= set(ITEMS)
            result = run.check()
            xml = written(result, ledger, parts)
        assert result.unread and not result.complete and result.checked == ()
        note = traces.read(xml).find("t:run", NS).findtext("t:note", namespaces=NS)
        assert note.startswith("time budget spent while reading the worklist; its items after Q") and \
            "read by the next run" in note
        with sqlite3.connect(options.run.ledger) as db:
            assert db.execute("SELECT finished FROM runs WHERE id = ?", (run.id,)).fetchone()[0] is None

    with pytest.raises(InputError, match=r"items\.txt:150003: not a Wikidata item id"):  # read to it: refused
        list(Worklist.from_file(listing).named())


def test_a_judge_model_that_will_not_load_stops_the_run_and_no_statement_is_blamed(world, tmp_path, embedder):
    """The embedded judge loads while statements are selected and pages read; a model that turns out broken stops
    the run with its error, as a judge server gone does, and no statement is recorded with it."""
    broken = tmp_path / "models" / "broken-model" / "transformers-bf16"
    broken.mkdir(parents=True)
    (broken / "config.json").write_text('{"model_type": "qwen2", "vocab_size": ', encoding="utf-8")  # cut short
    options = options_for(world, tmp_path, judge_model=str(broken))
    parts = Wiring(options, embedder=embedder)
    with RunLedger(options.run.ledger) as ledger, Run.open(parts, Worklist.of_items(ITEMS), ledger) as run:
        assert parts.backend.model_id == "broken-model/transformers-bf16" or \
            parts.backend.model_id == "broken-model/transformers-bf16 as float32"
        result = run.check()
    assert isinstance(result.failure, ModelUnavailable) and not result.complete
    assert str(broken) in str(result.failure) and "could not be loaded" in str(result.failure)
    assert not result.checked and sum(result.counts.values()) == 0
