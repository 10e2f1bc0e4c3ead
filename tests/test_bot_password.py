"""`[apply] password_file`, pywikibot's BotPassword file: a missing or malformed one stops `refbot apply --live` with
one line naming the file (and the line) and the fix, before any login; the password is never shown. Against the demo
world's Wikibase stand-in, which records every request, refbot run as a user runs it (pywikibot reads its
configuration once per process)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bot.output import trace as traces
from bot.demo.world import DemoWorld
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger
from test_apply import PROPOSED, ROOT, decide, edits, trace_of, write_config

SECRET = "s3cret-bot-pass"


@pytest.fixture
def world(tmp_path):
    with DemoWorld(workdir=tmp_path) as running:
        yield running


@pytest.fixture
def approved(world, tmp_path):
    """A run with one approved reference waiting, and refbot.ini for the world's bot account."""
    trace = trace_of(world, tmp_path / "check.xml")
    store = ReviewLedger(RunLedger(tmp_path / "runs.sqlite"))
    run = store.import_trace(traces.read(trace), trace)
    store.ledger.close()
    decide(tmp_path, run, "approved", [PROPOSED[1][0]])
    return run


def apply_with(world, tmp_path, password_file, *args: str, environment_password: str | None = None):
    write_config(world, tmp_path, f"password_file = {password_file}\n")
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("REFBOT_", "PYWIKIBOT"))}
    environ["PYTHONPATH"] = str(ROOT)
    if environment_password is not None:
        environ["REFBOT_APPLY_PASSWORD"] = environment_password
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=environ)


def test_a_missing_password_file_is_named_with_the_fix(world, approved, tmp_path):
    missing = tmp_path / "user-password.py"
    result = apply_with(world, tmp_path, missing, "apply", "--live")
    assert result.returncode == 2, result.stderr
    assert result.stderr == (f"refbot: error: [apply] password_file {missing} does not exist (set [apply] "
                             "password_file to pywikibot's password file, or remove it and export "
                             "REFBOT_APPLY_PASSWORD)\n")
    assert edits(world) == []


@pytest.mark.parametrize("line", [
    "('RefbotDemo', BotPassword('refbot', '{secret}')",  # a bracket short
    "('RefbotDemo', BotPassword('{secret}'))",  # the BotPassword without its name
    "RefbotDemo = {secret}",  # not a tuple at all
])
@pytest.mark.parametrize("environment_password", [None, "from-the-environment"])
def test_a_malformed_password_file_is_one_line_naming_its_line_never_its_text(world, approved, tmp_path, line,
                                                                              environment_password):
    secrets = tmp_path / "user-password.py"
    secrets.write_text("# pywikibot's password file\n\n" + line.format(secret=SECRET) + "\n", encoding="utf-8")
    secrets.chmod(0o600)
    result = apply_with(world, tmp_path, secrets, "apply", "--live", environment_password=environment_password)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"refbot: error: [apply] password_file {secrets}, line 3: not a password "
                                    "entry pywikibot can read (write the line as ('Example', BotPassword(")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert SECRET not in result.stderr + result.stdout
    assert edits(world) == []


def test_doctor_names_a_malformed_password_file_and_its_line(world, approved, tmp_path):
    secrets = tmp_path / "user-password.py"
    secrets.write_text(f"('RefbotDemo', BotPassword('refbot', '{SECRET}')\n", encoding="utf-8")
    secrets.chmod(0o600)
    result = apply_with(world, tmp_path, secrets, "doctor")
    line = next(line for line in result.stdout.splitlines() if line[6:].startswith("writes (apply)"))
    assert line.startswith("FAIL") and f"{secrets}, line 1: not a password entry" in line
    assert "fix: write the line as" in line and SECRET not in result.stdout
