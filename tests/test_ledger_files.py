"""Where a ledger is, as a user names it: a credentials file's contents are never quoted, a sqlite: URL with three
slashes (a relative path that reads as an absolute one) is refused, a file that is not a ledger is never opened as
one, a command that only reads never makes a ledger, and a malformed URL is one line naming the option."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.cli import main
from bot.errors import ConfigError, InputError
from bot.ledger.ledger import RunLedger

SECRET = "hunter2-Zq8v"


@pytest.mark.parametrize("content", [
    f"{SECRET}\n",  # a bare password file
    f"password = {SECRET}\n",  # no section at all
    f"[client]\nuser = refbot\n{SECRET}\n",  # a line that is no key = value
    f"[mysql]\npassword = {SECRET}\n",  # another section
])
def test_a_credentials_file_refbot_cannot_read_is_named_never_quoted(tmp_path, capsys, content):
    credentials = tmp_path / "replica.my.cnf"
    credentials.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as refused:
        RunLedger("postgresql://127.0.0.1:1/refbot", credentials=credentials, environ={})
    assert str(credentials) in str(refused.value) and SECRET not in str(refused.value)
    assert "[client]" in str(refused.value)

    ini = tmp_path / "refbot.ini"
    ini.write_text(f"[refbot]\ncontact = ops@example.org\n[run]\nledger = postgresql://127.0.0.1:1/refbot\n"
                   f"ledger_credentials = {credentials}\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["--config", str(ini), "run", "--status", "1"]) == 2
    said = capsys.readouterr()
    assert said.err.startswith("refbot: error: ") and str(credentials) in said.err
    assert SECRET not in said.out + said.err

    from bot.doctor import diagnose

    found = {finding.check: finding for finding in diagnose(ini, environ={})}
    assert found["run ledger"].state == "fail" and str(credentials) in found["run ledger"].detail
    assert all(SECRET not in finding.line() for finding in found.values())


def test_a_sqlite_url_with_three_slashes_is_refused_and_makes_nothing(tmp_path, monkeypatch, capsys):
    """SQLAlchemy reads sqlite:///etc/passwd as etc/passwd in the working folder: a new ledger nobody looks for."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as refused:
        RunLedger("sqlite:///etc/passwd")
    assert "relative path: etc/passwd, not /etc/passwd" in str(refused.value)
    assert "/etc/passwd, or etc/passwd in the working folder" in refused.value.hint
    assert main(["run", "--status", "1", "--ledger", "sqlite:///reports/runs.sqlite"]) == 2
    assert "relative path: reports/runs.sqlite" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == [], "nothing made"

    absolute = tmp_path / "runs.sqlite"
    with RunLedger(f"sqlite:///{absolute}") as ledger:  # four slashes: an absolute path, as documented
        assert ledger.path == absolute and ledger.open_run("k", "").id == 1


def _sqlite_of_something_else(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE responses (url TEXT, body BLOB)")
        connection.execute("INSERT INTO responses VALUES ('https://example.org/', x'00')")
    connection.close()


def _sqlite_with_a_runs_table_of_its_own(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, athlete TEXT, metres REAL)")
        connection.execute("INSERT INTO runs VALUES (1, 'Ada', 5000.0)")
    connection.close()


def commands_that_only_read(tmp_path) -> list[list[str]]:
    """Commands that read a run ledger and never make one (each run with ``--ledger``)."""
    return [["run", "--status", "1"], ["report", "--run", "1"], ["review", "--curator", "Tester"],
            ["approve", "--run", "1", "--all-supported", "--curator", "Tester"],
            ["export", "--quickstatements", "--out", str(tmp_path / "batch.tsv")], ["apply"]]


@pytest.mark.parametrize("make, problem", [
    (lambda path: path.write_text("root:x:0:0:root:/root:/bin/bash\n", encoding="utf-8"), "it is not a SQLite file"),
    (_sqlite_of_something_else, "a SQLite database with other tables than a ledger's (responses)"),
    (lambda path: path.mkdir(), "it is not a file"),
    (_sqlite_with_a_runs_table_of_its_own, "a SQLite database whose runs table is not a ledger's (it has no finished, "
                                           "key, started)"),
])
def test_a_file_that_is_not_a_ledger_is_refused_and_left_as_it_is(tmp_path, capsys, make, problem):
    path = tmp_path / "passwd"
    make(path)
    before = sorted((p.name, p.read_bytes() if p.is_file() else b"") for p in tmp_path.rglob("*"))
    with pytest.raises(ConfigError) as refused:
        RunLedger(path)
    assert str(refused.value).startswith(f"{path} is not a run ledger: {problem}; refbot leaves it as it is")
    for command in commands_that_only_read(tmp_path):
        assert main([*command, "--ledger", str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{path} is not a run ledger: {problem}" in err
    assert sorted((p.name, p.read_bytes() if p.is_file() else b"") for p in tmp_path.rglob("*")) == before

    from bot.doctor import diagnose

    ini = tmp_path / "refbot.ini"
    ini.write_text(f"[refbot]\ncontact = ops@example.org\n[run]\nledger = {path}\n", encoding="utf-8")
    found = {finding.check: finding for finding in diagnose(ini, environ={})}["run ledger"]
    assert found.state == "fail" and found.detail == f"{path} is not a run ledger: {problem}"


def test_commands_that_only_read_never_make_a_ledger(tmp_path, capsys):
    missing = tmp_path / "nowhere" / "runs.sqlite"
    with pytest.raises(InputError) as refused:
        RunLedger(missing, create=False)
    assert str(refused.value).startswith(f"there is no run ledger at {missing}")
    for command in commands_that_only_read(tmp_path):
        assert main([*command, "--ledger", str(missing)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"refbot: error: there is no run ledger at {missing} (`refbot run`") and \
            err.count("\n") == 1
    assert not (tmp_path / "nowhere").exists(), "no folder, no file made"

    with RunLedger(missing) as ledger:  # a command that writes makes it
        ledger.open_run("k", "")
    with RunLedger(missing, create=False) as ledger:
        assert ledger.run(1) is not None


def test_a_database_with_no_ledger_is_left_empty_by_a_command_that_only_reads(postgres, capsys):
    from sqlalchemy import create_engine, inspect

    from databases import create_database

    url = create_database(postgres, "refbot_empty")
    with pytest.raises(InputError) as refused:
        RunLedger(url, create=False)
    assert "holds no run ledger yet" in str(refused.value)
    assert main(["run", "--status", "1", "--ledger", url]) == 2
    assert "holds no run ledger yet" in capsys.readouterr().err
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://"))
    assert inspect(engine).get_table_names() == [], "no table made"
    engine.dispose()


@pytest.mark.parametrize("argv, option", [
    (["run", "--status", "1", "--ledger", "mysql+pymysql://[::1"], "[run] ledger"),
    (["run", "--status", "1", "--ledger", "mysql+pymysql://refbot:hunter2@[::1/refbot"], "[run] ledger"),
    (["report", "--run", "1", "--ledger", "postgresql://db.example:port/refbot"], "[run] ledger"),
    (["worker", "--broker", "redis://[::1"], "[queue] broker"),
    (["worker", "--broker", "redis://:hunter2@[::1/0"], "[queue] broker"),
])
def test_a_malformed_url_is_one_line_naming_the_option_and_the_fix(tmp_path, monkeypatch, capsys, argv, option):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("refbot: error: ") and err.count("\n") == 1 and "Traceback" not in err
    assert f"set {option}" in err and "hunter2" not in err
    assert list(tmp_path.iterdir()) == []
