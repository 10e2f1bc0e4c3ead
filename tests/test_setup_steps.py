"""The servers for a trial on one machine (docs/workers.md), followed as written: its lines (between
``<!-- servers: begin -->`` and ``<!-- servers: end -->``) run as they are, as root and without sudo, on this
machine's Debian — the packages installed, their servers started (a container starts none), the ledger's user made
on PostgreSQL and MariaDB with a password kept in ``~/.refbot-ledger.cnf`` — and then, with the page's ``refbot.ini``
lines, a run of two workers on each database ends finished over the Redis they started, every statement recorded
once.

Afterwards what the lines made is taken away (the databases and users, the keys) and the servers that were not
running before are stopped again. A machine that already has refbot's databases (the page followed by hand) is left
alone: skipped, as where the packages cannot be installed or the tests do not run as root."""

from __future__ import annotations

import configparser
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from bot.ledger.tables import checks
from bot.options import ini_text
from bot.ledger.ledger import RunLedger
from conftest import ROOT

GUIDE = ROOT / "docs" / "workers.md"
PAGE = GUIDE.read_text(encoding="utf-8")
ITEMS = ["Q990201", "Q990202", "Q990203"]
REDIS_CONF = Path("/etc/redis/redis.conf")

pytestmark = pytest.mark.slow


def marked(name: str) -> str:
    """The code block of the page between ``<!-- name: begin -->`` and ``<!-- name: end -->``."""
    match = re.search(rf"<!-- {name}: begin -->\n```\w*\n(.*?)```\n<!-- {name}: end -->", PAGE, re.S)
    assert match, f"{GUIDE.name} has no block marked {name}"
    return match.group(1)


def shell(script: str, *, cwd: Path | None = None, home: Path | None = None) -> subprocess.CompletedProcess:
    environ = dict(os.environ) | ({"HOME": str(home)} if home else {})
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=environ, capture_output=True, text=True,
                          timeout=600)


def _running() -> dict[str, bool]:
    return {"postgresql": "online" in subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True).stdout,
            "mariadb": subprocess.run(["service", "mariadb", "status"], capture_output=True).returncode == 0,
            "redis-server": subprocess.run(["redis-cli", "ping"], capture_output=True, text=True).stdout.strip()
            == "PONG"}


def _refbots_already() -> str:
    """What of refbot's the databases hold already (the servers running)."""
    postgres = shell("runuser -u postgres -- psql -tA -c \"SELECT 'role' FROM pg_roles WHERE rolname = 'refbot' "
                     "UNION ALL SELECT 'database' FROM pg_database WHERE datname = 'refbot'\"", cwd=Path("/"))
    mariadb = shell("mariadb -N -e \"SELECT 'user' FROM mysql.user WHERE user = 'refbot' UNION ALL "
                    "SELECT 'database' FROM information_schema.schemata WHERE schema_name = 'refbot'\"")
    assert postgres.returncode == 0 and mariadb.returncode == 0, (postgres.stderr, mariadb.stderr)
    return " ".join(f"PostgreSQL's {what}" for what in postgres.stdout.split()) + " " + \
        " ".join(f"MariaDB's {what}" for what in mariadb.stdout.split())


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """The page's lines run on this machine; the home they wrote ``~/.refbot-ledger.cnf`` in."""
    if os.geteuid() != 0:
        pytest.skip("the server lines are run as root, without sudo (as CI runs the tests)")
    if shutil.which("apt-get") is None or shutil.which("service") is None:
        pytest.skip("not a Debian machine: the server lines are Debian's")
    lines = marked("servers").splitlines()
    install, rest = lines[0], "\n".join(lines[1:])
    assert install.startswith("apt-get ") and "sudo" not in marked("servers")
    conf = REDIS_CONF.read_bytes() if REDIS_CONF.exists() else None
    installed = shell(install)
    if installed.returncode != 0:
        pytest.skip(f"the Debian packages cannot be installed here: {(installed.stdout + installed.stderr)[-500:]}")
    conf = conf if conf is not None else REDIS_CONF.read_bytes()
    before = _running()
    started = shell("service postgresql start\nservice mariadb start")  # the page's next two lines, to look first
    assert started.returncode == 0, started.stdout + started.stderr
    there = _refbots_already().strip()
    if there:
        _stop_unless(before)
        pytest.skip(f"this machine has refbot's databases already ({there}): the server lines are followed only "
                    "where they would make them")
    home = tmp_path_factory.mktemp("home")
    try:
        done = shell(rest, cwd=home, home=home)
        assert done.returncode == 0, f"the server lines of {GUIDE.name} failed:\n{done.stdout}\n{done.stderr}"
        yield home
    finally:
        dropped = shell("runuser -u postgres -- psql -q -c 'DROP DATABASE IF EXISTS refbot' "
                        "-c 'DROP ROLE IF EXISTS refbot'\n"
                        "mariadb -e 'DROP DATABASE IF EXISTS refbot; DROP USER IF EXISTS refbot@localhost'",
                        cwd=Path("/"))
        REDIS_CONF.write_bytes(conf)
        _stop_unless(before)
        assert dropped.returncode == 0, dropped.stderr


def _stop_unless(before: dict[str, bool]) -> None:
    for service, was_running in before.items():
        if not was_running:
            subprocess.run(["service", service, "stop"], capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from bot.demo.world import DemoWorld

    with DemoWorld(workdir=tmp_path_factory.mktemp("world")) as running:
        yield running


def guide_configuration() -> tuple[configparser.ConfigParser, str]:
    """The page's refbot.ini lines, and the MariaDB ledger its comment gives."""
    block = marked("servers-ini")
    parser = configparser.ConfigParser(inline_comment_prefixes=(";",), interpolation=None)
    parser.read_string(block)
    return parser, re.search(r"MariaDB: (mysql\+pymysql://\S+)", block).group(1)


@pytest.mark.parametrize("database", ["postgresql", "mariadb"])
def test_two_workers_finish_a_run_on_the_ledger_the_guide_set_up(servers, world, database, tmp_path):
    import redis

    parser, mariadb_ledger = guide_configuration()
    ledger = parser["run"]["ledger"] if database == "postgresql" else mariadb_ledger
    assert ledger.startswith({"postgresql": "postgresql://", "mariadb": "mysql+pymysql://"}[database])
    prefix = f"refbot-setup-test-{secrets.token_hex(4)}"  # the Redis may be one others use: keys of its own
    ini = tmp_path / "refbot.ini"
    ini.write_text(ini_text(world.options() | {
        "judge_backend": "scripted", "check_embeddings": "false", "fetch_delay": 0.1,
        "check_reports": str(tmp_path / "reports"), "run_ledger": ledger,
        "run_ledger_credentials": parser["run"]["ledger_credentials"], "queue_broker": parser["queue"]["broker"],
        "queue_prefix": prefix}), encoding="utf-8")
    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS) + "\n", encoding="utf-8")
    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")} | {
        "HOME": str(servers), "PYTHONPATH": str(ROOT)}

    def refbot(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "bot.cli", "--config", str(ini), *args], cwd=tmp_path,
                              env=environ, capture_output=True, text=True, timeout=300)

    enqueued = refbot("run", "--enqueue", "--items", str(items))
    assert enqueued.returncode == 0, enqueued.stderr
    run_id = int(re.match(r"run (\d+) \(new\): 3 item\(s\)", enqueued.stdout).group(1))
    logs = [tmp_path / f"worker-{n}.log" for n in (1, 2)]
    workers = [subprocess.Popen([sys.executable, "-m", "bot.cli", "--config", str(ini), "worker", "--name",
                                 f"readme-{n}"], cwd=tmp_path, env=environ, stdout=log.open("w"),
                                stderr=subprocess.STDOUT) for n, log in enumerate(logs, 1)]
    shared = RunLedger(ledger, credentials=servers / ".refbot-ledger.cnf")
    try:
        deadline = time.monotonic() + 300
        while not shared.run_finished(shared.run(run_id)):
            assert time.monotonic() < deadline, "the run did not finish:\n" + "\n".join(
                log.read_text()[-2000:] for log in logs)
            for worker, log in zip(workers, logs):
                assert worker.poll() is None, log.read_text()[-3000:]
            time.sleep(0.5)
    finally:
        for worker in workers:
            worker.terminate()
        codes = [worker.wait(timeout=120) for worker in workers]
        client = redis.Redis.from_url(parser["queue"]["broker"])
        for key in client.scan_iter(f"{prefix}:*"):
            client.delete(key)
    assert codes == [0, 0], [log.read_text()[-3000:] for log in logs]
    with shared.transaction() as connection:
        guids = list(connection.execute(select(checks.c.guid).where(checks.c.run_id == run_id)).scalars())
    shared.close()
    assert len(guids) == len(set(guids)) >= len(ITEMS), "every statement once"
    status = refbot("run", "--status", str(run_id))
    assert status.returncode == 0 and "0 left" in status.stdout, status
    report = refbot("report", "--run", str(run_id))
    assert report.returncode == 0, report.stderr
