"""`refbot report --run` for every run of a ledger — checked in one process, by workers, or not yet by anyone — from
the ledger alone, loading no model: the configuration it is rendered with names a judge and an embedding model that
are not installed (loading either would fail), and the trace names the judge the run was checked with. A reports
folder that cannot be written stops a run before it checks anything; a full disk names the file being written."""

from __future__ import annotations

import multiprocessing
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.distributed.work import perform
from bot.options import Options, ini_text
from bot.output import trace as traces
from bot.ledger.ledger import RunLedger
from bot.wiring import Wiring
from conftest import ROOT

ITEMS = ["Q990201", "Q990202"]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from bot.demo.world import DemoWorld

    with DemoWorld(workdir=tmp_path_factory.mktemp("world")) as running:
        yield running


def _ini(tmp_path: Path, name: str, values: dict) -> Path:
    ini = tmp_path / f"{name}.ini"
    ini.write_text(ini_text(values), encoding="utf-8")
    return ini


def _checked_with(world, tmp_path: Path) -> dict:
    """What the runs are checked with: the scripted judge, no embeddings."""
    return world.options() | {"judge_backend": "scripted", "check_embeddings": False,
                              "run_ledger": tmp_path / "runs.sqlite", "check_reports": tmp_path / "reports"}


def _rendered_with(world, tmp_path: Path) -> Path:
    """A configuration whose judge and embedding model are not installed: a report that loaded either would fail."""
    return _ini(tmp_path, "later", world.options() | {
        "judge_backend": "transformers", "check_embeddings": True, "model_cache": tmp_path / "no-models",
        "run_ledger": tmp_path / "runs.sqlite", "check_reports": tmp_path / "again"})


def _report(ini: Path, run_id: int, capsys) -> object:
    assert main(["--config", str(ini), "report", "--run", str(run_id)]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    return traces.read(Path(re.search(r"^trace: (.+)$", out, re.M).group(1)))


def _outcomes(tree) -> dict[str, str]:
    return {s.get("guid"): s.get("outcome") for s in tree.getroot().iter(traces.tag("statement"))}


def test_report_run_renders_a_run_checked_in_one_process_loading_no_model(world, tmp_path, capsys):
    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS) + "\n", encoding="utf-8")
    ran = _ini(tmp_path, "ran", _checked_with(world, tmp_path))
    assert main(["--config", str(ran), "run", "--items", str(items)]) == 0
    captured = capsys.readouterr()
    written = traces.read(Path(re.search(r"^trace: (.+)$", captured.out, re.M).group(1)))
    # the run says what to do next with what it proposes
    assert ("refbot: next, decide on the references it proposes: refbot review --run 1 (or refbot export --run 1 "
            "--quickstatements)") in captured.err.splitlines()

    tree = _report(_rendered_with(world, tmp_path), 1, capsys)
    judge = tree.getroot().find(f"{traces.tag('run')}/{traces.tag('judge')}")
    assert (judge.get("backend"), judge.get("model"), judge.get("embeddings")) == ("scripted", "scripted", "none")
    assert _outcomes(tree) == _outcomes(written) and len(_outcomes(tree)) >= 2
    run = tree.getroot().find(traces.tag("run"))
    assert run.get("id") == "1" and run.get("complete") == "true"
    assert not (tmp_path / "no-models").exists() or not any((tmp_path / "no-models").iterdir())
    assert (tmp_path / "again" / "run-1.html").exists()


def test_report_run_renders_a_run_workers_checked_as_they_checked_it(world, tmp_path, capsys):
    from bot import shared_settings
    from bot.check_run import settings_key

    options = Options.flat(**_checked_with(world, tmp_path))
    ledger = RunLedger(options.run.ledger)
    run = ledger.open_run("workers", "items (workers)")
    ledger.enqueue(run, ITEMS, settings=settings_key(options), properties=(), shared=shared_settings.shared(options))

    tree = _report(_rendered_with(world, tmp_path), run.id, capsys)  # no item finished yet: no worker said how
    notes = [note.text for note in tree.getroot().iter(traces.tag("note"))]
    assert "no process recorded how this run was checked yet: its judge and settings are this configuration's" \
        in notes
    assert tree.getroot().find(f"{traces.tag('run')}/{traces.tag('judge')}").get("backend") == "transformers"
    assert tree.getroot().find(traces.tag("run")).get("complete") == "false"

    end = perform(Wiring(options), ledger, [{"ledger": ledger.identity, "run": run.id, "items": ITEMS[:1]}], {})
    assert end.kind == "done", end
    tree = _report(_rendered_with(world, tmp_path), run.id, capsys)
    judge = tree.getroot().find(f"{traces.tag('run')}/{traces.tag('judge')}")
    assert (judge.get("backend"), judge.get("model")) == ("scripted", "scripted"), "as the worker checked it"
    assert {s.get("guid").split("$")[0] for s in tree.getroot().iter(traces.tag("statement"))} == {ITEMS[0]}
    ledger.close()


def test_report_run_of_a_run_the_ledger_does_not_have_is_one_line(tmp_path, capsys):
    with RunLedger(tmp_path / "runs.sqlite") as ledger:
        ledger.open_run("k", "")
    assert main(["report", "--run", "7", "--ledger", str(tmp_path / "runs.sqlite")]) == 2
    assert capsys.readouterr().err == (f"refbot: error: the ledger {tmp_path / 'runs.sqlite'} has no run 7 (pass the "
                                       "run id `refbot run` or `refbot run --enqueue` printed)\n")


def test_report_run_latest_renders_the_newest_run_and_says_when_there_is_none(tmp_path, capsys):
    ledger_file = str(tmp_path / "runs.sqlite")
    with RunLedger(tmp_path / "runs.sqlite") as ledger:
        pass
    assert main(["report", "--run", "latest", "--ledger", ledger_file]) == 2
    assert capsys.readouterr().err.startswith(f"refbot: error: {ledger_file} holds no run yet")
    with RunLedger(tmp_path / "runs.sqlite") as ledger:
        ledger.open_run("first", "")
        ledger.open_run("second", "")
    out = tmp_path / "out" / "latest.html"
    assert main(["report", "--run", "latest", "--ledger", ledger_file, "--out", str(out)]) == 0
    written = traces.read(out.with_suffix(".xml"))
    assert written.getroot().find(traces.tag("run")).get("id") == "2"
    for wrong in ("0", "newest"):
        with pytest.raises(SystemExit):
            main(["report", "--run", wrong, "--ledger", ledger_file])
        assert "argument --run: a run id (1, 2, …) or latest, not" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["run", "--items", "ITEMS"], ["check", "Q990201"]])
def test_a_reports_folder_that_cannot_be_written_stops_a_run_before_it_checks_anything(tmp_path, capsys, command):
    """The endpoint does not answer: were anything selected or checked first, its error would come first."""
    items = tmp_path / "items.txt"
    items.write_text("Q990201\n", encoding="utf-8")
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    ini = _ini(tmp_path, "refbot", {"contact": "ops@example.org", "judge_backend": "scripted",
                                    "sparql_endpoint": "http://127.0.0.1:1/sparql", "run_ledger": tmp_path / "r.sqlite",
                                    "check_reports": blocker / "reports"})
    argv = ["--config", str(ini), *[str(items) if part == "ITEMS" else part for part in command]]
    assert main(argv) == 2
    assert capsys.readouterr().err == (f"refbot: error: cannot write traces and reports in {blocker / 'reports'}: "
                                       "Not a directory (make it writable, or set [check] reports (--reports) to a "
                                       "folder that is)\n")
    assert not (tmp_path / "r.sqlite").exists(), "no run opened"


FULL = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from bot.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


def _sample_trace(path: Path) -> Path:
    from bot.doctor import _sample_trace as sample

    return traces.write(sample(), path)


def test_a_write_that_fails_for_want_of_room_names_the_file(tmp_path):
    """A file size limit (RLIMIT_FSIZE) fails the write as a full disk does, naming no file."""
    trace = _sample_trace(tmp_path / "trace.xml")
    out = tmp_path / "report.html"
    done = subprocess.run([sys.executable, "-c", FULL, "512", "report", str(trace), "--out", str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert done.returncode == 1 and done.stderr == f"refbot: error: {out}: File too large\n"


def test_a_full_disk_names_the_file_being_written(tmp_path, capsys):
    """A real full disk: a tmpfs of 64 KiB, filled (mounting one needs root)."""
    full = tmp_path / "full"
    full.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(full)], capture_output=True).returncode:
        pytest.skip("mounting a tmpfs needs root")
    try:
        with pytest.raises(OSError), (full / "filler").open("wb") as filler:
            filler.write(b"\0" * 100_000)
        trace = _sample_trace(tmp_path / "trace.xml")
        assert main(["report", str(trace), "--out", str(full / "report.html")]) == 1
        assert capsys.readouterr().err == f"refbot: error: {full / 'report.html'}: No space left on device\n"
        ledger = tmp_path / "runs.sqlite"
        with RunLedger(ledger) as kept:
            kept.open_run("k", "")
        assert main(["report", "--run", "1", "--ledger", str(ledger), "--out", str(full / "run-1.html")]) == 1
        assert capsys.readouterr().err == f"refbot: error: {full / 'run-1.xml'}: No space left on device\n"
    finally:
        subprocess.run(["umount", str(full)], check=True)


def test_two_ledgers_run_1_never_overwrite_each_others_files_in_one_reports_folder(tmp_path, capsys):
    """An operator switches ledgers (a trial one, the production one): each has a run 1. The folder's first ledger
    keeps the plain names; the other's run files carry a fingerprint of where it lives, and each command prints the
    path it wrote."""
    reports = tmp_path / "reports"
    written = {}
    for name in ("first", "second"):
        ledger_file = tmp_path / name / "runs.sqlite"
        with RunLedger(ledger_file) as ledger:
            ledger.open_run(f"{name} worklist", "")
        assert main(["report", "--run", "1", "--ledger", str(ledger_file), "--reports", str(reports)]) == 0
        written[name] = Path(re.search(r"^report: (.+)$", capsys.readouterr().out, re.M).group(1))
    assert written["first"] == reports / "run-1.html"
    assert re.fullmatch(r"run-1-[0-9a-f]{8}\.html", written["second"].name) and written["second"].parent == reports
    assert written["first"].exists() and written["second"].exists()
    # The first ledger's report written again keeps its name; the second's too.
    assert main(["report", "--run", "1", "--ledger", str(tmp_path / "first" / "runs.sqlite"),
                 "--reports", str(reports)]) == 0
    assert f"report: {written['first']}" in capsys.readouterr().out


def _name_first_run(ledger_file: str, folders: list[str], barrier: Any, names: Any) -> None:
    from bot.output.file_names import run_stem

    with RunLedger(Path(ledger_file)) as ledger:
        for folder in folders:
            barrier.wait(30)
            names.put(run_stem(Path(folder), ledger, 1).name)


def test_two_processes_of_one_ledger_naming_their_first_run_at_once_both_get_the_plain_name(tmp_path):
    """The reports folder's claim is never seen half written: two processes of the same ledger naming their first
    run in a new folder at the same moment, 200 times, both name it run-1 every time (never run-1-FINGERPRINT)."""
    ledger_file = tmp_path / "runs.sqlite"
    with RunLedger(ledger_file) as ledger:
        ledger.open_run("worklist", "")
    folders = [str(tmp_path / f"reports-{round_}") for round_ in range(200)]
    context = multiprocessing.get_context("spawn")
    barrier, names = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_name_first_run, args=(str(ledger_file), folders, barrier, names))
               for _ in range(2)]
    for worker in workers:
        worker.start()
    named = [names.get(timeout=120) for _ in range(2 * len(folders))]
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert Counter(named) == {"run-1": 400}
    assert all(sorted(os.listdir(folder)) == [".refbot-ledger"] for folder in folders), "no temporary file is left"


@pytest.mark.parametrize("content, why", [(b"\xff\xfe\x00junk\n", "not UTF-8 text"),
                                          (b"", "left by a process that stopped while writing it")])
def test_a_claim_refbot_cannot_read_is_one_line_naming_the_file_and_the_fix(tmp_path, capsys, content, why):
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / ".refbot-ledger").write_bytes(content)
    ledger_file = tmp_path / "runs.sqlite"
    with RunLedger(ledger_file) as ledger:
        ledger.open_run("worklist", "")
    assert main(["report", "--run", "1", "--ledger", str(ledger_file), "--reports", str(reports)]) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"{reports / '.refbot-ledger'}: the reports folder's claim" in err and why in err
    assert f"delete {reports / '.refbot-ledger'}" in err


def test_run_status_of_a_run_checked_in_one_process_and_of_a_run_that_does_not_exist(tmp_path, capsys):
    """`run --status latest` says where the newest run stands whether workers or one process checked it; a run the
    ledger does not hold is named as such, with the newest one."""
    ledger_file = tmp_path / "runs.sqlite"
    with RunLedger(ledger_file) as ledger:
        ledger.open_run("worklist", "checked here")
    assert main(["run", "--status", "latest", "--ledger", str(ledger_file)]) == 0
    assert "run 1 (checked in one process, not by workers): 0 statement(s) recorded (none yet); not finished" \
        in capsys.readouterr().out
    assert main(["run", "--status", "7", "--ledger", str(ledger_file)]) == 2
    err = capsys.readouterr().err
    assert f"the ledger {ledger_file} has no run 7 (its newest is run 1" in err and "enqueued" not in err


@pytest.mark.parametrize("mode, run_id, named", [("run", "12", "run 12,"), ("verify", "3", "verify run 3,"),
                                                 ("check", "", "check run,")])
def test_the_reports_header_names_the_run_as_people_say_it(mode, run_id, named):
    """"run 12", never "run run12" (the stylesheet's space before the id was dropped as whitespace)."""
    import re

    from bot.output.report import render

    from bot.doctor import _sample_trace as sample

    tree = sample()
    run = tree.getroot().find(traces.tag("run"))
    run.set("mode", mode)
    if run_id:
        run.set("id", run_id)
    else:
        run.attrib.pop("id", None)
    meta = re.search(r'<p class="meta">(.*?)</p>', render(tree), re.S).group(1)
    assert " ".join(meta.split()).startswith(named), meta


def test_a_run_in_a_folder_another_ledger_claimed_says_so_and_its_next_steps_name_its_ledger(world, tmp_path,
                                                                                             capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in [name for name in os.environ if name.startswith("REFBOT_")]:
        monkeypatch.delenv(name)
    items = tmp_path / "items.txt"
    items.write_text(ITEMS[0] + "\n", encoding="utf-8")
    first = tmp_path / "first" / "runs.sqlite"
    with RunLedger(first) as ledger:
        ledger.open_run("first worklist", "")
    reports = tmp_path / "reports"
    assert main(["report", "--run", "1", "--ledger", str(first), "--reports", str(reports)]) == 0  # claims reports/
    capsys.readouterr()
    ran = _ini(tmp_path, "refbot", {k: v for k, v in _checked_with(world, tmp_path).items()
                                    if k not in ("run_ledger", "check_reports")})
    other = tmp_path / "other.sqlite"
    assert main(["--config", str(ran), "run", "--items", str(items), "--ledger", str(other)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "reports holds another ledger's run files (its .refbot-ledger names that ledger), so this ledger's are " \
           "named run-1-" in err
    assert f"refbot review --run 1 --ledger {other} (or refbot export --run 1 --ledger {other} --quickstatements)" \
        in err
