"""The soak benchmark's short version (benchmarks/soak.py): 60 statements over 20 items on 20 loopback hosts with
faulty, dead and hostile pages, authority records plain and hostile (every kind of benchmarks/hostile_records.py),
SPARQL answering 429, the judge's llama.cpp server killed and restarted, `refbot run` SIGKILLed twice and resumed,
then 40 approvals written by `refbot apply --live` under faults and two SIGKILLs. What an operator relies on: nothing
lost, nothing checked or written twice, no record that takes a check down or reaches a refused address, a valid
trace, an inert report."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

HOSTILE_RECORDS = ("quadratic-literal", "billion-laughs", "wide-turtle", "dump-turtle", "contexts-file",
                   "contexts-loopback", "contexts-link-local")

pytestmark = [pytest.mark.slow, pytest.mark.model, pytest.mark.timeout(960)]


def figure(output: str, label: str) -> str:
    found = re.search(rf"^  {re.escape(label)}\s+(.+)$", output, re.MULTILINE)
    assert found, f"the soak printed no {label!r}:\n{output[-4000:]}"
    return found.group(1).strip()


def test_a_short_soak_loses_nothing_repeats_nothing_and_writes_each_approved_reference_once(tmp_path):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.skip("Debian's chromium is needed (scripts/setup --test installs it)")
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "soak.py"), "--statements", "60", "--items", "20", "--hosts", "20",
         "--kills", "2", "--approve", "40", "--seed", "3", "--max-minutes", "12", "--workdir", str(tmp_path / "soak")],
        capture_output=True, text=True, timeout=900, cwd=tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and "soak: passed" in output, output[-6000:]

    assert figure(output, "generated (unsourced)") == "60"
    assert figure(output, "in the ledger (one run)").split()[0] == "60"
    assert figure(output, "lost (must be 0)") == "0"
    assert figure(output, "checked twice (must be 0)").split()[0] == "0"
    assert figure(output, "error") == "0"
    for kind in HOSTILE_RECORDS:
        assert int(figure(output, f"served, hostile {kind}").split()[0]) >= 1, kind
    for form in ("Turtle", "RDF/XML", "JSON-LD"):
        assert int(figure(output, f"served, plain {form}")) >= 1, form
    for label in ("refused requests (must be 0)", "outcomes changed (must be 0)", "tracebacks (must be 0)"):
        assert figure(output, label).split()[0] == "0", label
    read, _, of = figure(output, "plain records read (in the trace)").split()[:3]
    assert int(read) == int(of) > 0, "every plain record read"
    assert len(re.findall(r"^soak: refbot #\d+ SIGKILLed after", output, re.MULTILINE)) == 2, "two kills, resumed"
    assert re.search(r"judge \(llama\.cpp\) SIGKILLed at \d+ statements", output)
    assert figure(output, "trace valid against trace.xsd").startswith("yes")
    assert figure(output, "report: script ran") == "False"
    assert figure(output, "report: script elements") == "0"
    assert figure(output, "report: statements in their own element") == "True"

    assert figure(output, "written exactly once").split()[:3] == ["40", "of", "40"]
    for label in ("written twice (must be 0)", "edited without approval (must be 0)",
                  "approved, never written (must be 0)", "not one reference to the URL",
                  "ledger disagrees with the wiki"):
        assert figure(output, label) == "0", label
    served = figure(output, "faults answered by the stand-in")
    for fault in ("maxlag", "editconflict", "badtoken", "HTTP 503", "answer held"):
        assert fault in served, served
    assert "SIGKILLed while edit" in output, "an apply was killed while its edit landed"
