"""A run driven from Python alone (no argparse), on the demo world: the real SPARQL server (Oxigraph), its sites
on loopback, a real small model behind llama.cpp's OpenAI-compatible server, and the real embedding model."""

from __future__ import annotations

import os
import re
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from bot.output import trace as traces
from bot.demo.world import DemoWorld
from bot.errors import InputError
from bot.options import Options
from bot.runs import Run
from bot.selection.worklists import Worklist

pytestmark = pytest.mark.model

NS = {"t": traces.NS}
ITEMS = ["Q990202", "Q990203"]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("store")) as running:
        yield running


def options_for(world: DemoWorld, tmp_path: Path, llama_server, **extra) -> Options:
    # Threshold 0: SmolLM2-135M is a plumbing model, so every paragraph it is asked about counts as support.
    return replace(Options(), **world.options(), judge_backend="openai", judge_url=llama_server.url,
                   check_reports=tmp_path / "reports", run_ledger=tmp_path / "runs.sqlite", threshold=0.0,
                   check_workers=1, **extra)


def test_a_two_item_run_checks_each_statement_once_keeps_it_in_the_ledger_and_writes_its_trace(
        world, tmp_path, llama_server):
    options = options_for(world, tmp_path, llama_server)
    expected = {guid for guid, case in world.expected().items() if case["item"] in ITEMS}
    seen = []
    with Run.open(options, Worklist.of_items(ITEMS)) as run:
        assert not run.resumed and {s.guid for s in run.todo} == expected
        result = run.check(on_progress=seen.append)
        xml, html = run.write_trace()

    assert [(progress.done, progress.total) for progress in seen] == [(n, len(expected)) for n in
                                                                      range(1, len(expected) + 1)]
    assert [progress.check.statement.item for progress in seen] == sorted(p.check.statement.item for p in seen)
    assert result.complete and result.left == 0 and result.failure is None
    assert {check.statement.guid for check in result.checked} == expected
    assert sum(result.counts.values()) == len(expected) and result.counts.get("error", 0) == 0
    with sqlite3.connect(options.run_ledger) as db:
        checks = db.execute("SELECT guid, outcome FROM checks WHERE run_id = ?", (run.id,)).fetchall()
        finished = db.execute("SELECT finished FROM runs WHERE id = ?", (run.id,)).fetchone()[0]
        items = [row[0] for row in db.execute("SELECT item FROM items WHERE run_id = ? ORDER BY rowid", (run.id,))]
    assert sorted(guid for guid, _ in checks) == sorted(expected) and finished is not None
    assert {guid: outcome for guid, outcome in checks} == {c.statement.guid: c.outcome.value for c in result.checked}
    assert items == ITEMS

    assert xml == tmp_path / "reports" / f"run-{run.id}.xml" and html.exists()
    tree = traces.read(xml)  # validated against the schema
    run_element = tree.find("t:run", NS)
    assert run_element.get("mode") == "run" and run_element.get("complete") == "true"
    assert [item.get("id") for item in tree.iterfind("t:item", NS)] == ITEMS
    assert sorted(s.get("guid") for s in tree.iterfind("t:item/t:statement", NS)) == sorted(expected)

    # Opened again, the finished run is not resumed, and what it checked rests for [run] recheck_days.
    with Run.open(options, Worklist.of_items(ITEMS)) as again:
        assert again.id != run.id and not again.resumed
        assert again.todo == [] and again.skipped == len(expected)


def test_a_run_out_of_time_keeps_what_is_left_for_the_next_one_which_resumes_it(world, tmp_path, llama_server):
    options = options_for(world, tmp_path, llama_server)
    worklist = Worklist.of_items(ITEMS, properties=["P166"])
    with Run.open(options, worklist) as run:
        todo = [s.guid for s in run.todo]
        result = run.check(time_budget=0)  # spent before the first statement could start
        xml, _ = run.write_trace()
    assert todo and result.left == len(todo) and not result.complete and result.checked == ()
    assert "time budget spent" in traces.read(xml).find("t:run", NS).findtext("t:note", namespaces=NS)

    first = float(traces.read(xml).find("t:run", NS).get("duration-s"))
    with Run.open(options, worklist) as resumed:
        assert resumed.id == run.id and resumed.resumed and [s.guid for s in resumed.todo] == todo
        started = time.monotonic()
        assert resumed.check().complete
        xml, _ = resumed.write_trace()
    # the run's time is both invocations' (opening, selecting and checking), not the last one's alone
    total = float(traces.read(xml).find("t:run", NS).get("duration-s"))
    assert total >= first + (time.monotonic() - started) * 0.99


def test_a_dry_run_keeps_nothing_and_an_item_that_does_not_exist_is_an_input_error(world, tmp_path, llama_server):
    options = options_for(world, tmp_path, llama_server)
    with Run.open(options, Worklist.of_items(["Q990299"]), keep=False) as run:
        assert run.selected == [] and run.check().checked == ()
        with pytest.raises(InputError, match="Q990299 does not exist"):
            run.write_trace()
    assert not options.run_ledger.exists()
    with pytest.raises(InputError, match="give item ids"):
        Worklist.of_items(["Q990202", "P31"])


def test_the_readmes_python_example_runs_as_written(world, tmp_path, llama_server, monkeypatch, capsys):
    from bot.options import ini_text
    from conftest import ROOT

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    example = re.search(r"\*\*From Python\.\*\*.*?```python\n(.*?)```", readme, re.S).group(1)
    settings = world.options() | {"judge_backend": "openai", "judge_url": llama_server.url, "threshold": 0.0,
                                  "check_reports": str(tmp_path / "reports"),
                                  "run_ledger": str(tmp_path / "runs.sqlite")}
    (tmp_path / "refbot.ini").write_text(ini_text(settings), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for name in [name for name in os.environ if name.startswith("REFBOT_")]:
        monkeypatch.delenv(name)
    exec(compile(example, "README.md", "exec"), {})
    out = capsys.readouterr().out
    expected = sorted(guid for guid, case in world.expected().items() if case["item"] in ITEMS)
    assert f"run 1: {len(expected)} statement(s) to check" in out
    assert sorted(re.findall(r"^\d/\d (\S+) ", out, re.M)) == expected
    assert re.search(r"^\d+ supported, (\d+ corroborated, )?(\d+ contradicted, )?(\d+ undecided, )?\d+ not-found, "
                     r"\d+ irretrievable, "
                     r"0 error \(0 left\)", out, re.M), out
    assert (tmp_path / "reports" / "run-1.xml").exists() and (tmp_path / "reports" / "run-1.html").exists()
