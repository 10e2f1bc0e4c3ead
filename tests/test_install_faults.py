"""A broken installation must never look like broken pages: `refbot doctor` names what is broken with the fix,
and `refbot check` on the demo world stops with one line instead of reporting pages irretrievable.

The demo world is real (Oxigraph, its sites on loopback, a small model behind llama.cpp's server). The broken
install is real too where it can be: a subprocess in which the module `lxml_html_clean` cannot be imported, as
after `pip install` of lxml 6.1 without it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot import modelstore
from bot.output import trace as traces
from bot.options import ini_text
from bot.cli import main
from bot.demo.world import DemoWorld

ROOT = Path(__file__).resolve().parent.parent
NS = {"t": traces.NS}
# What an install without lxml_html_clean looks like from inside Python: importing it fails.
WITHOUT_CLEANER = ("import sys; sys.modules['lxml_html_clean'] = None; from bot.cli import main; "
                   "raise SystemExit(main(sys.argv[1:]))")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    with DemoWorld(workdir=tmp_path_factory.mktemp("store")) as running:
        yield running


def write_config(tmp_path: Path, settings: dict) -> Path:
    path = tmp_path / "refbot.ini"
    path.write_text(ini_text(settings), encoding="utf-8")
    return path


def demo_config(world, tmp_path, llama_server) -> Path:
    return write_config(tmp_path, world.options() | {
        "judge_backend": "openai", "judge_url": llama_server.url, "check_reports": str(tmp_path / "reports"),
        "run_ledger": str(tmp_path / "reports" / "runs.sqlite")})


def refbot_without_cleaner(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """refbot in a subprocess that cannot import lxml_html_clean, with no configuration but what ``args`` give."""
    environ = {name: value for name, value in os.environ.items() if not name.startswith("REFBOT_")}
    environ["XDG_CONFIG_HOME"] = str(tmp_path / "no-config")
    return subprocess.run([sys.executable, "-c", WITHOUT_CLEANER, *args], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, env=environ | {"PYTHONPATH": str(ROOT)})


def test_doctor_passes_on_this_installation_with_one_line_per_check(tmp_path, llama_server, capsys):
    config = write_config(tmp_path, {"judge_backend": "openai", "judge_url": llama_server.url,
                                     "contact": "refbot-tests@example.org",
                                     "check_reports": str(tmp_path / "reports")})
    code = main(["--config", str(config), "doctor"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0, "\n".join(lines)
    states = {line[6:26].strip(): line[:5].strip() for line in lines}
    for check in ("dependencies", "html → paragraphs", "pdf → paragraphs", "trace schema", "report stylesheet",
                  "SPARQL queries", "configuration", "contact", "judge", "embedding model", "folders"):
        assert states.get(check) == "ok", (check, lines)
    judge = next(line for line in lines if line.startswith("ok    judge "))
    assert llama_server.url in judge, "the server was asked which model it serves"


def test_doctor_fails_on_a_model_whose_files_changed_and_says_how_to_mend_it(tmp_path, capsys):
    cache = tmp_path / "models"
    name = "all-minilm-l6-v2"
    installed = modelstore.gguf_path(name, modelstore.default_cache())
    if not modelstore.installed(name, modelstore.default_cache()):
        pytest.fail(f"{name} is not installed; scripts/setup --test installs it")
    copy = modelstore.gguf_path(name, cache)
    shutil.copytree(installed, copy)
    shutil.copy(installed.with_name(installed.name + ".sha256"), copy.with_name(copy.name + ".sha256"))
    config = write_config(tmp_path, {"model_cache": str(cache), "check_reports": str(tmp_path / "reports"),
                                     "judge_backend": "scripted"})
    assert main(["--config", str(config), "doctor"]) == 0
    before = next(line for line in capsys.readouterr().out.splitlines() if "embedding model" in line)
    assert before.startswith("ok") and "6 files verified by sha256" in before
    (copy / "config.json").write_text("{}", encoding="utf-8")
    code = main(["--config", str(config), "doctor"])
    after = next(line for line in capsys.readouterr().out.splitlines() if "embedding model" in line)
    assert code == 1 and after.startswith("FAIL") and "config.json" in after
    assert f"run `refbot models fetch {name}`" in after


def test_doctor_fails_while_the_configured_judges_model_is_not_fetched_and_names_the_command(tmp_path, capsys):
    """The embedded judge configured and its model missing: no statement can be checked, so doctor does not say
    refbot can work; it names the model, the cache and the command that fetches it."""
    cache = tmp_path / "models"
    cache.mkdir()
    name = "all-minilm-l6-v2"
    installed = modelstore.gguf_path(name, modelstore.default_cache())
    shutil.copytree(installed, modelstore.gguf_path(name, cache))
    shutil.copy(installed.with_name(installed.name + ".sha256"),
                modelstore.gguf_path(name, cache).with_name(installed.name + ".sha256"))
    config = write_config(tmp_path, {"model_cache": str(cache), "check_reports": str(tmp_path / "reports"),
                                     "judge_backend": "transformers", "judge_model": "qwen2.5-coder-1.5b"})
    code = main(["--config", str(config), "doctor"])
    captured = capsys.readouterr()
    line = next(line for line in captured.out.splitlines() if line[6:].startswith("judge model"))
    assert code == 1
    assert line == (f"FAIL  judge model          qwen2.5-coder-1.5b is not installed in {cache}; the judge cannot work "
                    "without it — fix: refbot models fetch qwen2.5-coder-1.5b --transformers")
    assert "refbot cannot work until the failures are fixed" in captured.err


def test_doctor_names_a_broken_configuration_and_an_unreachable_judge_server(tmp_path, capsys):
    broken = tmp_path / "broken.ini"
    broken.write_text("[judge]\nthreshhold = 0.5\n", encoding="utf-8")
    assert main(["--config", str(broken), "doctor"]) == 1
    line = next(line for line in capsys.readouterr().out.splitlines() if "configuration" in line)
    assert line.startswith("FAIL") and f"{broken}: unknown key [judge] threshhold" in line
    assert line.endswith("fix: see docs/configuration.md for every key")
    with __import__("socket").socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    config = write_config(tmp_path, {"judge_backend": "openai", "judge_url": f"http://127.0.0.1:{closed}/v1",
                                     "check_reports": str(tmp_path / "reports")})
    assert main(["--config", str(config), "doctor"]) == 1
    line = next(line for line in capsys.readouterr().out.splitlines() if line[6:].startswith("judge "))
    assert line.startswith("FAIL") and f"127.0.0.1:{closed}" in line and "fix: start the server" in line


def test_doctor_names_a_missing_lxml_html_clean_and_the_fix(tmp_path, llama_server):
    # A judge that works, whatever models this machine has installed: the cleaner is the one failure.
    config = write_config(tmp_path, {"judge_backend": "openai", "judge_url": llama_server.url,
                                     "contact": "refbot-tests@example.org",
                                     "check_reports": str(tmp_path / "reports")})
    result = refbot_without_cleaner(tmp_path, "--config", str(config), "doctor")
    assert result.returncode == 1, result.stdout + result.stderr
    html = next(line for line in result.stdout.splitlines() if "html → paragraphs" in line)
    assert html.startswith("FAIL") and "lxml_html_clean" in html and "fix: pip install lxml_html_clean" in html
    assert "1 failure(s)" in result.stderr


def test_check_stops_with_one_line_when_lxml_html_clean_is_missing(world, tmp_path, llama_server):
    result = refbot_without_cleaner(tmp_path, "--config", str(demo_config(world, tmp_path, llama_server)),
                                    "check", "Q990201")
    assert result.returncode == 2, result.stdout + result.stderr
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("refbot: error: refbot's html → paragraphs does not work")
    assert "lxml_html_clean" in errors[0] and "pip install lxml_html_clean" in errors[0]
    assert "irretrievable" not in result.stdout and not (tmp_path / "reports").exists(), "nothing was checked"


def test_check_stops_when_the_extractor_raises_on_every_page_and_blames_no_page(world, tmp_path, llama_server,
                                                                                monkeypatch, capsys):
    """The extractor raises on the world's pages as trafilatura does after its import failed half-way (the module
    without its function), while doctor's sample still passes: the first statements end as refbot's error, named,
    then the check stops; no page is called unsupported and no statement irretrievable or not-found for it."""
    import trafilatura

    real = trafilatura.extract

    def broken(text, url=None, **options):
        if url and url.startswith("http://127.0.0.1"):
            raise AttributeError("module 'trafilatura' has no attribute 'extract'", name="extract", obj=trafilatura)
        return real(text, url=url, **options)

    monkeypatch.setattr(trafilatura, "extract", broken)
    code = main(["--config", str(demo_config(world, tmp_path, llama_server)), "--quiet", "check", "Q990201"])
    captured = capsys.readouterr()
    assert code == 1, captured.out + captured.err
    errors = [line for line in captured.err.splitlines() if line.startswith("refbot:")]
    assert len(errors) == 1, captured.err
    assert re.match(r"refbot: error: stopped after [34] statement\(s\) failed the same way in refbot itself",
                    errors[0]), errors[0]
    assert "paragraph extraction" in errors[0] and "AttributeError" in errors[0] and "refbot doctor" in errors[0]
    trace_path = Path(next(line for line in captured.out.splitlines() if line.startswith("trace: "))[7:])
    tree = traces.read(trace_path)
    assert tree.getroot().find("t:run", NS).get("complete") == "false"
    dead_only = {guid for guid, case in world.expected().items() if case["expected"] == "irretrievable"}
    # Statements an authority record corroborates read no page: the broken extractor never touches them.
    by_records = {guid for guid, case in world.expected().items() if case["via"] == "kg"}
    statements = tree.findall(".//t:statement", NS)
    assert statements, "the statements checked before the stop are in the trace"
    for statement in statements:
        reason = statement.findtext("t:reason", namespaces=NS)
        if statement.get("guid") in dead_only:  # its pages are really dead: nothing was extracted
            continue
        if statement.get("guid") in by_records:
            assert statement.get("outcome") == "corroborated", reason
            continue
        assert statement.get("outcome") == "error", reason
        assert reason.startswith("refbot's paragraph extraction failed: AttributeError"), reason
    assert not tree.findall(".//t:document[@outcome='unsupported']", NS), "no page is blamed"


def test_a_run_stops_when_the_parser_fails_alike_on_every_site_and_rechecks_those_statements_on_resume(
        world, tmp_path, llama_server, monkeypatch, capsys):
    """A parser that still reads refbot's sample but raises the same way on every page (a library regression):
    each page alone looks damaged, but pages of three sites failing alike, with none read, stop the run; the
    statements it spoiled are not kept, so the same command checks them once the parser is mended."""
    import sqlite3

    import trafilatura

    real = trafilatura.extract

    def regressed(text, url=None, **options):
        if url and url.startswith("http://127.0.0.1"):
            raise TypeError("'NoneType' object is not subscriptable")
        return real(text, url=url, **options)

    items = tmp_path / "items.txt"
    items.write_text("Q990201\nQ990202\nQ990203\n", encoding="utf-8")
    people = {"Q990201", "Q990202", "Q990203"}
    listed = sorted(guid for guid, case in world.expected().items() if case["item"] in people)
    command = ["--config", str(demo_config(world, tmp_path, llama_server)), "--quiet", "run", "--items", str(items)]
    ledger = tmp_path / "reports" / "runs.sqlite"
    monkeypatch.setattr(trafilatura, "extract", regressed)
    code = main(command)
    captured = capsys.readouterr()
    assert code == 1, captured.out + captured.err
    errors = [line for line in captured.err.splitlines() if line.startswith("refbot: error:")]
    assert len(errors) == 1 and "pages of 3 sites all failed the same way in their parser" in errors[0], errors
    assert "TypeError" in errors[0] and "refbot doctor" in errors[0]
    with sqlite3.connect(ledger) as db:
        kept = db.execute("SELECT outcome, element FROM checks").fetchall()
        finished = db.execute("SELECT finished FROM runs").fetchall()
    assert len(kept) < len(listed) and finished == [(None,)], "stopped early, left to resume"
    assert all("cannot read the text/html body" not in element for _, element in kept), "spoiled checks dropped"

    monkeypatch.setattr(trafilatura, "extract", real)  # the parser mended: the same command resumes the run
    assert main(command) in (0, 1)
    capsys.readouterr()
    with sqlite3.connect(ledger) as db:
        guids = [row[0] for row in db.execute("SELECT guid FROM checks")]
        unreadable = db.execute("SELECT COUNT(*) FROM checks WHERE element LIKE '%cannot read the text/html%'")
        finished = db.execute("SELECT finished FROM runs").fetchall()
    assert sorted(guids) == listed, "every statement checked exactly once in the end"
    assert unreadable.fetchone() == (0,) and len(finished) == 1 and finished[0][0] is not None
