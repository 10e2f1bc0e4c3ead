"""How a command ended, mapped in one place (bot/cli/exits.py) to its exit code and the lines on standard error."""

from __future__ import annotations

import pytest

from bot.cli.exits import EXIT_INTERRUPTED, EXIT_OK, EXIT_PARTIAL, EXIT_USAGE, Ended, error_lines, exit_code
from bot.errors import (BackendUnavailable, ConfigError, InputError, InternalError, JudgeError, ModelError, QueryError,
                        WriteError)


@pytest.mark.parametrize("outcome, code", [
    (None, EXIT_OK),
    (Ended(), EXIT_OK),
    (Ended(failed=2), EXIT_PARTIAL),
    (Ended(stopped=BackendUnavailable("gone", url="http://127.0.0.1:9/v1")), EXIT_PARTIAL),
    (Ended(stopped=InputError("Q1 does not exist")), EXIT_PARTIAL),  # it stopped part-way: work was done
    (ConfigError("no contact"), EXIT_USAGE),
    (InputError("bad line", path="items.txt", line=3), EXIT_USAGE),
    (ModelError("weights missing"), EXIT_USAGE),
    (InternalError("broken extractor", component="html → paragraphs"), EXIT_USAGE),
    (ImportError("No module named 'lxml_html_clean'"), EXIT_USAGE),
    (QueryError("timeout", query="worklist", endpoint="http://127.0.0.1:9/sparql"), EXIT_PARTIAL),
    (JudgeError("unparseable"), EXIT_PARTIAL),
    (WriteError("blocked", code="blocked", fatal=True), EXIT_PARTIAL),
    (FileNotFoundError(2, "No such file or directory", "items.txt"), EXIT_PARTIAL),
    (KeyboardInterrupt(), EXIT_INTERRUPTED),
])
def test_every_way_a_command_ends_has_one_exit_code(outcome, code):
    assert exit_code(outcome) == code


def test_the_error_lines_name_the_error_and_then_what_was_kept():
    stopped = Ended(stopped=BackendUnavailable("stopped answering", url="http://127.0.0.1:9/v1"),
                    then="finished statements are saved in the ledger; run the same command again to resume")
    assert error_lines(stopped) == ["refbot: error: stopped answering",
                                    "refbot: finished statements are saved in the ledger; run the same command "
                                    "again to resume"]
    assert error_lines(Ended(failed=3, then="said only after an error")) == []
    assert error_lines(None) == [] and error_lines(Ended()) == []
    assert error_lines(ConfigError("no contact", hint="set [refbot] contact")) == \
        ["refbot: error: no contact (set [refbot] contact)"]
    assert error_lines(FileNotFoundError(2, "No such file or directory", "items.txt")) == \
        ["refbot: error: items.txt: No such file or directory"]
    assert error_lines(ImportError("No module named 'x'"), fix="pip install x") == \
        ["refbot: error: a library refbot needs cannot be imported: No module named 'x' (pip install x)"]
    assert error_lines(KeyboardInterrupt()) == ["refbot: interrupted; work done so far is saved"]


def test_no_handler_decides_an_exit_code_or_prints_an_error():
    """The handlers return how they ended; only bot/cli/exits.py turns that into a code or an error line."""
    import ast

    from conftest import ROOT

    for path in (ROOT / "bot" / "cli").glob("*.py"):
        if path.name == "exits.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert "EXIT_" not in text, f"{path.name} decides an exit code"
        assert "refbot: error" not in text, f"{path.name} prints an error itself"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Assign):
                targets = [t for t in node.targets if isinstance(t, ast.Attribute)]
                assert not [t for t in targets if isinstance(t.value, ast.Name) and t.value.id == "args"], \
                    f"{path.name}:{node.lineno} changes the parsed arguments"
