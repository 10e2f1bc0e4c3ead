"""The ledger on the three databases it runs on (SQLite, PostgreSQL, MariaDB — real servers on 127.0.0.1): the
shape the migrations make is the one the code queries, processes recording the same statements at once record
each once, a ledger written before migrations keeps every row, and a server's password comes from the environment
or a replica.my.cnf-style file and is never shown."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import func, select

from bot.errors import ConfigError
from bot.ledger.tables import checks, decisions, metadata
from bot.options import load_options
from bot.ledger.ledger import RunLedger


def test_the_migrations_make_the_tables_the_code_queries(ledger_target):
    ledger = RunLedger(ledger_target)
    with ledger.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
        version = connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()
    ledger.close()
    assert differences == [] and version == "0010"
    RunLedger(ledger_target).close()  # opened again: already at the current shape, nothing done


def _record_all(target: str, guids: list[str], barrier, answers) -> None:
    """One process of the race below: every statement of the run recorded as soon as all processes are ready."""
    try:
        ledger = RunLedger(target if "://" in target else Path(target))
        run = ledger.open_run("race", "")
        barrier.wait(timeout=120)
        answers.put([guid for guid in guids if ledger.record(run, guid, "Q1", "not-found", f"<statement g='{guid}'/>")])
        ledger.close()
    except BaseException as error:
        barrier.abort()
        answers.put(repr(error))


def test_processes_recording_the_same_statements_at_once_record_each_once(ledger_target):
    processes, guids = 4, [f"Q1${number:04d}" for number in range(60)]
    context = multiprocessing.get_context("spawn")
    barrier, answers = context.Barrier(processes), context.Queue()
    workers = [context.Process(target=_record_all, args=(str(ledger_target), guids, barrier, answers))
               for _ in range(processes)]
    for worker in workers:
        worker.start()
    recorded = [answers.get(timeout=300) for _ in workers]
    for worker in workers:
        worker.join(timeout=60)
    assert all(isinstance(answer, list) for answer in recorded), recorded
    firsts = [guid for answer in recorded for guid in answer]
    assert sorted(firsts) == guids, "each statement's first record is one process's, and only one's"
    ledger = RunLedger(ledger_target)
    with ledger.transaction() as connection:
        assert connection.execute(select(func.count()).select_from(checks)).scalar() == len(guids)
    ledger.close()


def test_guids_that_differ_in_case_are_two_statements(ledger_target):
    """MariaDB compares text without case by default; a GUID is compared byte for byte everywhere."""
    ledger = RunLedger(ledger_target)
    run = ledger.open_run("case", "")
    assert ledger.record(run, "Q1$abc", "Q1", "supported", "<s/>")
    assert ledger.record(run, "Q1$ABC", "Q1", "not-found", "<s/>")
    assert ledger.counts(run) == {"supported": 1, "not-found": 1}
    ledger.close()


# The ledger as refbot wrote it before migrations (SQLite, keyed by run and GUID, ordered by rowid).
OLD_SCHEMA = """
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, started TEXT NOT NULL, finished TEXT,
    description TEXT NOT NULL DEFAULT '');
CREATE TABLE items (run_id INTEGER NOT NULL REFERENCES runs(id), item TEXT NOT NULL, element TEXT NOT NULL,
    PRIMARY KEY (run_id, item));
CREATE TABLE checks (run_id INTEGER NOT NULL REFERENCES runs(id), guid TEXT NOT NULL, item TEXT NOT NULL,
    outcome TEXT NOT NULL, checked TEXT NOT NULL, element TEXT NOT NULL, PRIMARY KEY (run_id, guid));
CREATE INDEX checks_by_guid ON checks (guid, checked);
CREATE TABLE run_elements (run_id INTEGER PRIMARY KEY REFERENCES runs(id), element TEXT NOT NULL);
CREATE TABLE decisions (run_id INTEGER NOT NULL REFERENCES runs(id), guid TEXT NOT NULL, decision TEXT NOT NULL,
    curator TEXT NOT NULL, decided TEXT NOT NULL, note TEXT NOT NULL DEFAULT '');
CREATE INDEX decisions_by_statement ON decisions (run_id, guid);
"""


def test_a_ledger_from_before_migrations_keeps_every_row_and_its_order(tmp_path):
    path = tmp_path / "runs.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute("INSERT INTO runs (key, started, description) VALUES ('k', '2026-11-01T10:00:00Z', 'items a')")
        db.execute("INSERT INTO runs (key, started, finished) VALUES ('trace:" + "a" * 64 + "', 'x', 'y')")
        for item in ("Q9", "Q2", "Q5"):  # recorded in this order, not the ids'
            db.execute("INSERT INTO items VALUES (1, ?, ?)", (item, f"<item id='{item}'/>"))
        for guid, item in (("Q9$B", "Q9"), ("Q2$A", "Q2"), ("Q9$A", "Q9"), ("Q5$C", "Q5")):
            db.execute("INSERT INTO checks VALUES (1, ?, ?, 'not-found', '2026-11-01T10:05:00Z', ?)",
                       (guid, item, f"<statement guid='{guid}'/>"))
        db.execute("INSERT INTO run_elements VALUES (1, '<run/>')")
        db.execute("DELETE FROM checks WHERE guid = 'Q2$A'")  # a statement forgotten: rowids keep a gap
        db.execute("INSERT INTO checks VALUES (1, 'Q2$A', 'Q2', 'supported', '2026-11-01T10:09:00Z', '<s/>')")
        db.executemany("INSERT INTO decisions VALUES (1, ?, ?, ?, '2026-11-02T08:00:00Z', '')",
                       [("Q2$A", "approved", "Ada"), ("Q2$A", "rejected", "Bob")])
    ledger = RunLedger(path)
    run = ledger.run(1)
    assert run is not None and ledger.add_seconds(run, 5) == 5.0, "runs gained their seconds"
    assert [(item, [guid for guid, _ in statements]) for item, _, statements in ledger.items(run)] == [
        ("Q9", ["Q9$B", "Q9$A"]), ("Q2", ["Q2$A"]), ("Q5", ["Q5$C"])], "items and statements in their order"
    assert ledger.counts(run) == {"not-found": 3, "supported": 1} and ledger.run_element(1) == "<run/>"
    assert ledger.run_by_key("trace:" + "a" * 64) == 2, "a key longer than a hash kept whole"
    with ledger.transaction() as connection:
        kept = list(connection.execute(select(decisions.c.id, decisions.c.curator).order_by(decisions.c.id)))
    assert [tuple(row) for row in kept] == [(1, "Ada"), (2, "Bob")], "a decision's id is its rowid: its version"
    assert not ledger.record(run, "Q9$A", "Q9", "supported", "<s/>"), "still once per run"
    assert ledger.record(run, "Q7$D", "Q7", "supported", "<s/>")
    ledger.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT max(id) FROM checks").fetchone()[0] == 6, "new rows after the old ones"


def test_a_servers_password_comes_from_the_environment_or_a_credentials_file_and_is_never_shown(mariadb, tmp_path):
    from databases import create_database

    url = create_database(mariadb, "refbot_credentials")
    bare = url.replace(f":{mariadb.password}@", "@")
    assert mariadb.password not in bare
    with pytest.raises(ConfigError) as refused:
        RunLedger(bare, environ={})
    where = f"mysql+pymysql://127.0.0.1:{mariadb.port}/refbot_credentials"  # (errors drop any user:password@)
    assert f"cannot open the run ledger {where}" in str(refused.value)
    assert "REFBOT_RUN_LEDGER_PASSWORD" in refused.value.hint

    RunLedger(bare, environ={"REFBOT_RUN_LEDGER_PASSWORD": mariadb.password}).close()
    cnf = tmp_path / "replica.my.cnf"
    cnf.write_text(f"[client]\nuser = refbot\npassword = '{mariadb.password}'\n", encoding="utf-8")
    options = load_options(None, environ={"REFBOT_RUN_LEDGER": url.replace(f"refbot:{mariadb.password}@", ""),
                                          "REFBOT_RUN_LEDGER_CREDENTIALS": str(cnf)})
    with RunLedger.of(options.run) as ledger:
        assert ledger.open_run("k", "").id == 1
        assert mariadb.password not in str(ledger.path)

    wrong = url.replace(f":{mariadb.password}@", ":not-the-password@")
    with pytest.raises(ConfigError) as refused:
        RunLedger(wrong)
    assert "not-the-password" not in str(refused.value) and "Access denied" in str(refused.value)
    shown = load_options(None, environ={"REFBOT_RUN_LEDGER": wrong}).public()["run_ledger"]
    assert shown == wrong.replace("not-the-password", "***")


HOLD = """
import sys, time
from bot.ledger.ledger import RunLedger
ledger = RunLedger(sys.argv[1]); run = ledger.open_run('held', '')
try:
    ledger.claim(run)
except Exception as error:
    print(error, flush=True); sys.exit(3)
print('held', flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("server", ["postgres", "mariadb"])
def test_a_run_on_a_server_is_held_by_one_process_until_it_ends_however_it_ends(server, request):
    import os
    import signal
    import subprocess
    import sys

    from conftest import ROOT
    from databases import create_database

    url = create_database(request.getfixturevalue(server), f"refbot_claim_{server}")
    environ = os.environ | {"PYTHONPATH": str(ROOT)}
    holder = subprocess.Popen([sys.executable, "-c", HOLD, url], stdout=subprocess.PIPE, text=True, env=environ)
    assert holder.stdout.readline().strip() == "held"
    other = subprocess.run([sys.executable, "-c", HOLD, url], capture_output=True, text=True, env=environ, timeout=60)
    assert other.returncode == 3 and "is being checked by another process" in other.stdout, other
    assert "refbot-test-secret" not in other.stdout
    holder.send_signal(signal.SIGKILL)  # killed: its connection, and the lock with it, end
    holder.wait()
    again = subprocess.Popen([sys.executable, "-c", HOLD, url], stdout=subprocess.PIPE, text=True, env=environ)
    try:
        assert again.stdout.readline().strip() == "held"
    finally:
        again.kill()
        again.wait()


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from bot.demo.world import DemoWorld

    with DemoWorld(workdir=tmp_path_factory.mktemp("world")) as running:
        yield running


@pytest.mark.parametrize("server", ["postgres", "mariadb"])
def test_a_run_with_its_ledger_on_a_server_ends_as_one_on_sqlite(server, request, world, tmp_path):
    """The same worklist, the same scripted judge: a run whose ledger is on PostgreSQL or MariaDB records the same
    outcomes and writes the same trace as a run on SQLite, and resumes the same way."""
    from bot.judge.scripted import ScriptedBackend
    from bot.options import Options
    from bot.output import trace as traces
    from bot.output.run_trace import run_trace, write_run
    from bot.check_run import Run
    from bot.selection.worklists import Worklist
    from bot.wiring import Wiring
    from databases import create_database

    url = create_database(request.getfixturevalue(server), f"refbot_run_{server}")
    items = ["Q990201", "Q990202"]
    outcomes, traced = {}, {}
    for name, target in (("sqlite", tmp_path / "runs.sqlite"), (server, url)):
        options = Options.flat(**world.options(), check_reports=tmp_path / name, run_ledger=target, check_workers=1,
                               check_embeddings=False)
        parts = Wiring(options, backend=ScriptedBackend(support=0.95, logprobs=lambda p, c: [0.0] * len(c.split())))
        with RunLedger.of(options.run) as ledger, Run.open(parts, Worklist.of_items(items), ledger) as run:
            result = run.check()
            xml, _ = write_run(run_trace(result, ledger, parts), tmp_path / name / "run")
        with RunLedger.of(options.run) as ledger, Run.open(parts, Worklist.of_items(items), ledger) as again:
            assert again.todo == [] and again.skipped == len(result.checked), "checked statements rest"
        outcomes[name] = {check.statement.guid: check.outcome.value for check in result.checked}
        tree = traces.read(xml)  # valid against the schema
        traced[name] = [(s.getparent().get("id"), s.get("guid"), s.get("outcome"))
                        for s in tree.getroot().iter(traces.tag("statement"))]
    assert outcomes["sqlite"] and outcomes["sqlite"] == outcomes[server]
    assert traced["sqlite"] == traced[server]


def test_a_database_server_gone_is_an_error_naming_the_ledger_and_its_return_is_taken_up(tmp_path):
    from databases import create_database, start_postgres

    from bot.errors import ServiceError

    server = start_postgres()
    try:
        ledger = RunLedger(create_database(server, "refbot_restarted"))
        run = ledger.open_run("k", "")
        assert ledger.record(run, "Q1$A", "Q1", "supported", "<s/>")
        server.kill()
        with pytest.raises(ServiceError, match=r"the run ledger at postgresql\+psycopg://.*127\.0\.0\.1") as gone:
            ledger.record(run, "Q1$B", "Q1", "supported", "<s/>")
        assert "database server runs" in str(gone.value)
        server.restart()
        assert ledger.record(run, "Q1$B", "Q1", "supported", "<s/>"), "the ledger reconnects"
        assert ledger.done(run) == {"Q1$A", "Q1$B"}, "what was committed before is kept"
        ledger.close()
    finally:
        server.stop()


def test_doctor_says_whether_the_ledger_and_the_queue_answer(postgres, redis_server, tmp_path):
    from databases import create_database, free_port

    from bot.doctor import FAIL, OK, diagnose

    ini = tmp_path / "refbot.ini"
    url = create_database(postgres, 'refbot_doctor')
    ini.write_text(f"[run]\nledger = {url}\n[queue]\nbroker = {redis_server.url('2')}\n", encoding="utf-8")
    found = {finding.check: finding for finding in diagnose(ini, environ={})}
    assert found["run ledger"].state == OK, "an empty database: the first run makes the ledger, not the doctor"
    assert found["run ledger"].detail.endswith("holds no run ledger yet: the first `refbot run` makes its tables")
    RunLedger(url).close()
    found = {finding.check: finding for finding in diagnose(ini, environ={})}
    assert found["run ledger"].state == OK
    assert "reachable, its tables at the current shape" in found["run ledger"].detail
    assert found["queue"].state == OK and found["queue"].detail.startswith("Redis at redis://127.0.0.1:")
    ini.write_text(f"[run]\nledger = postgresql://refbot@127.0.0.1:{free_port()}/nothing\n"
                   f"[queue]\nbroker = redis://127.0.0.1:{free_port()}/0\n", encoding="utf-8")
    found = {finding.check: finding for finding in diagnose(ini, environ={})}
    assert found["run ledger"].state == FAIL and "cannot open the run ledger" in found["run ledger"].detail
    assert found["queue"].state == FAIL and "does not answer" in found["queue"].detail


def test_threads_of_one_process_record_in_transactions_of_their_own(ledger_target):
    """A ledger shared by a process's threads: one thread's call never joins another thread's open transaction."""
    import threading

    ledger = RunLedger(ledger_target)
    run = ledger.open_run("threads", "")
    inside, proceed = threading.Event(), threading.Event()

    def holding() -> None:
        with ledger.transaction():
            ledger.record(run, "Q1$held", "Q1", "supported", "<s/>")
            inside.set()
            proceed.wait(timeout=2)  # (SQLite: the other thread waits for this one's write lock meanwhile)
            raise RuntimeError("rolled back")  # its transaction, and only its, is undone

    def record_beside() -> None:
        inside.wait(timeout=30)
        try:
            ledger.record(run, "Q1$beside", "Q1", "supported", "<s/>")
        finally:
            proceed.set()

    errors: list[BaseException] = []

    def run_catching(target) -> None:
        try:
            target()
        except BaseException as error:  # noqa: BLE001 (collected for the assertion below)
            errors.append(error)

    threads = [threading.Thread(target=run_catching, args=(target,)) for target in (holding, record_beside)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert [type(error) for error in errors] == [RuntimeError], errors
    assert ledger.done(run) == {"Q1$beside"}, "the other thread's record was committed on its own"
    ledger.close()
