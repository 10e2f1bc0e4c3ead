"""Where a ledger lives and how it is opened: a file (SQLite, the default, for one machine) or a database server any
number of processes and machines share (PostgreSQL; MariaDB/MySQL, as Toolforge's ToolsDB).

``[run] ledger`` is a path or a URL (``postgresql://refbot@db.example/refbot``,
``mysql+pymysql://s12345@tools.db.svc.wikimedia.cloud/s12345__refbot``). The password is never in a trace or a log:
it comes from the URL itself (a configuration file only its owner reads), ``REFBOT_RUN_LEDGER_PASSWORD``, or a
``replica.my.cnf``-style file (``[run] ledger_credentials``: its ``[client]`` ``user`` and ``password``, as Toolforge
gives every tool). Each ledger is brought to the current shape by its migrations (Alembic) the first time a process
opens it.
"""

from __future__ import annotations

import configparser
import logging
import os
import socket
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import closing, contextmanager
from pathlib import Path
from urllib.request import pathname2url

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from bot.errors import ConfigError

# How long a process waits for another's write to a SQLite ledger (each is a statement or a short transaction), and
# for a server's lock (opening a run, migrating).
BUSY_TIMEOUT_S = 30.0
# The DB-API driver each server's URL gets when it names none: psycopg 3 and PyMySQL (pure Python, no client
# library to install).
DRIVERS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg", "mysql": "mysql+pymysql",
           "mariadb": "mariadb+pymysql"}
PASSWORD_VARIABLE = "REFBOT_RUN_LEDGER_PASSWORD"  # where a server's password may come from
CREDENTIALS_HINT = ("point [run] ledger_credentials at a file with a [client] section (user = …, password = …), as "
                    "Toolforge's replica.my.cnf")
_MIGRATED: set[str] = set()  # the ledgers this process has brought to the current shape


def is_url(target: str | Path | None) -> bool:
    return target is not None and "://" in str(target)


def ledger_url(target: str | Path | None, *, credentials: Path | None = None,
               environ: Mapping[str, str] | None = None) -> URL:
    """The SQLAlchemy URL of ``target`` (None: a SQLite ledger in memory), with the password filled in from
    ``environ`` (REFBOT_RUN_LEDGER_PASSWORD) or the ``credentials`` file where the URL has none."""

    if target is None:
        return make_url("sqlite://")
    if not is_url(target):
        return make_url(f"sqlite:///{Path(target).expanduser().resolve()}")
    try:
        url = make_url(str(target))
        url.port  # noqa: B018 (a port that is no number: refused here, not by the driver's first connection)
    except (ArgumentError, ValueError):  # ValueError: "mysql+pymysql://[::1" (the host never closed)
        # (the message loses any user:password@ of the text: RefbotError redacts every URL in it)
        raise ConfigError(f"[run] ledger is not a database URL: {target}",
                          hint="set [run] ledger (or --ledger) to a file's path, or a server's URL such as "
                               "postgresql://HOST/DB or mysql+pymysql://HOST/DB") from None
    if url.drivername in DRIVERS:
        url = url.set(drivername=DRIVERS[url.drivername])
    if url.get_backend_name() not in ("postgresql", "mysql", "mariadb", "sqlite"):
        raise ConfigError(f"[run] ledger: {url.get_backend_name()} is not a database refbot keeps a ledger in",
                          hint="use a path (SQLite), postgresql://… or mysql+pymysql://…")
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
            and not Path(url.database).is_absolute():
        # SQLAlchemy reads sqlite:///etc/passwd as the relative path etc/passwd: a file where nobody looks for it.
        raise ConfigError(f"[run] ledger: a sqlite: URL with three slashes names a relative path: {url.database}, "
                          f"not /{url.database}", hint=f"set [run] ledger (or --ledger) to the file's path itself: "
                                                       f"/{url.database}, or {url.database} in the working folder")
    if url.password is None and url.get_backend_name() != "sqlite":
        user, password = _credentials(credentials, environ if environ is not None else os.environ)
        if password is not None:
            url = url.set(password=password)
        if url.username is None and user:
            url = url.set(username=user)
    return url


def _credentials(path: Path | None, environ: Mapping[str, str]) -> tuple[str | None, str | None]:
    if environ.get(PASSWORD_VARIABLE):
        return None, environ[PASSWORD_VARIABLE]
    if path is None:
        return None, None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        with path.expanduser().open(encoding="utf-8") as handle:
            parser.read_file(handle)
    except OSError as error:
        raise ConfigError(f"cannot read the ledger's credentials from {path}: {error.strerror or error}",
                          hint=CREDENTIALS_HINT) from None
    except (configparser.Error, UnicodeDecodeError) as error:
        # Never the parser's message: it quotes the line it could not read, which may be the password itself.
        line = getattr(error, "lineno", None)
        raise ConfigError(f"cannot read the ledger's credentials from {path}: not an INI file with a [client] "
                          f"section" + (f" (line {line})" if line else ""), hint=CREDENTIALS_HINT) from None
    if not parser.has_section("client"):
        raise ConfigError(f"{path} has no [client] section", hint=CREDENTIALS_HINT)
    client = parser["client"]
    password = client.get("password")
    return client.get("user"), password.strip("'\"") if password is not None else None


SQLITE_HEADER = b"SQLite format 3\x00"


# The columns every ledger's runs table has had, since before its migrations.
RUNS_COLUMNS = frozenset({"id", "key", "started", "finished"})


def sqlite_problem(path: Path) -> str:
    """Why the existing file at ``path`` is no ledger refbot may open ("" when it is one, or is empty): not a SQLite
    file, or a SQLite database of something else (another program's tables, none of a ledger's)."""
    if not path.is_file():
        return "it is not a file"
    try:
        with path.open("rb") as stream:
            header = stream.read(len(SQLITE_HEADER))
        if not header:
            return ""
        if header != SQLITE_HEADER:
            return "it is not a SQLite file"
        read_only = f"file:{pathname2url(str(path))}?mode=ro"
        with closing(sqlite3.connect(read_only, uri=True, timeout=BUSY_TIMEOUT_S)) as connection:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            columns = {row[1] for row in connection.execute("PRAGMA table_info(runs)")} if "runs" in tables else set()
    except (OSError, sqlite3.Error) as error:
        return f"it cannot be read ({error})"
    if tables and "runs" not in tables:
        shown = ", ".join(sorted(tables)[:3]) + (", …" if len(tables) > 3 else "")
        return f"a SQLite database with other tables than a ledger's ({shown})"
    missing = sorted(RUNS_COLUMNS - columns) if tables else []
    if missing:  # another program's table of that name: refused before anything is written (WAL, migrations)
        return f"a SQLite database whose runs table is not a ledger's (it has no {', '.join(missing)})"
    return ""


def holds_ledger(engine: Engine) -> bool:
    """Whether the database has a ledger's tables already (a server's database may be new and empty)."""
    return inspect(engine).has_table("runs")


def hidden(url: str | URL) -> str:
    """The URL as it may be printed: any password replaced by ***."""

    try:
        return make_url(url).render_as_string(hide_password=True) if is_url(str(url)) else str(url)
    except (ArgumentError, ValueError):
        return "(an unreadable URL)"


def create(url: URL) -> Engine:
    """An engine for the ledger at ``url``. SQLite: write-ahead log, every commit synced, each transaction taking
    the write lock at its start (BEGIN IMMEDIATE: a transaction that reads then writes is never refused half-way by
    another process's write), a busy wait of BUSY_TIMEOUT_S. Servers: connections checked before use (a server
    restarted meanwhile costs a reconnect, not an error)."""

    if url.get_backend_name() != "sqlite":
        arguments = {"connect_timeout": int(BUSY_TIMEOUT_S)}
        return create_engine(url, pool_pre_ping=True, pool_size=2, max_overflow=4, connect_args=arguments)
    memory = url.database in (None, "", ":memory:")
    engine = create_engine(url, poolclass=StaticPool if memory else None,
                           connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _connected(connection: sqlite3.Connection, _record: object) -> None:
        connection.isolation_level = None  # pysqlite begins nothing itself: the "begin" event below does
        if not memory:
            _write_ahead(connection)
        connection.execute("PRAGMA synchronous=FULL")

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def _write_ahead(connection: sqlite3.Connection) -> None:
    """WAL mode. Switching a new file to it needs the file to itself, and SQLite answers "locked" at once, without
    waiting, while another process opens the same new ledger: wait here."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


@contextmanager
def locked_transaction(engine: Engine, lock: str | None = None, *,
                       release: list[str] | None = None) -> Iterator[Connection]:
    """A transaction on a connection of its own; with ``lock``, no other process runs a transaction with the same
    lock until this one has committed. SQLite's write lock (BEGIN IMMEDIATE) already is such; PostgreSQL takes a
    transaction advisory lock; MariaDB a named lock, taken before the transaction begins and released after it
    commits (released earlier, another process could read before the commit), as are the named locks the caller
    adds to ``release`` meanwhile."""
    with engine.connect() as connection:
        named = lock is not None and connection.dialect.name in ("mysql", "mariadb")
        if named:
            take_named_lock(connection, lock or "")
            connection.commit()
        try:
            with connection.begin():
                if lock is not None and connection.dialect.name == "postgresql":
                    connection.execute(text("SELECT pg_advisory_xact_lock(hashtext(:name))"), {"name": lock})
                yield connection
        finally:
            for name in ([lock or ""] if named else []) + (release or []):
                release_named_lock(connection, name)
            if release:
                release.clear()


def take_named_lock(connection: Connection, name: str) -> None:
    """MariaDB's GET_LOCK, waiting up to BUSY_TIMEOUT_S; ConfigError when another process keeps it longer."""
    got = connection.execute(text("SELECT GET_LOCK(:name, :wait)"),
                             {"name": name[:64], "wait": int(BUSY_TIMEOUT_S)}).scalar()
    if got != 1:
        raise ConfigError(f"the ledger's lock {name!r} stayed held by another process for {BUSY_TIMEOUT_S:g} s",
                          hint="another refbot is opening a run or migrating the ledger; try again")


def release_named_lock(connection: Connection, name: str) -> None:
    """(A lock whose connection broke was released with it.)"""
    try:
        connection.execute(text("SELECT RELEASE_LOCK(:name)"), {"name": name[:64]})
        connection.commit()
    except SQLAlchemyError:
        pass


def migrate(engine: Engine) -> None:
    """Bring the ledger to the current shape (bot/ledger/migrations), once per process and ledger; a ledger SQLite
    file written before migrations existed is converted in place, keeping every row and its order."""
    key = engine.url.render_as_string(hide_password=False)
    if key in _MIGRATED and engine.url.database not in (None, "", ":memory:"):
        return
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).with_name("migrations")))
    chatty = logging.getLogger("alembic")
    level = chatty.level
    chatty.setLevel(max(level, logging.WARNING))  # "Context impl PostgresqlImpl": not news to an operator
    try:
        with locked_transaction(engine, "refbot-ledger-migrate") as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")
    finally:
        chatty.setLevel(level)
    _MIGRATED.add(key)


def home(engine: Engine, path: Path | str | None) -> tuple[str, str]:
    """Where this ledger lives, as (a fingerprint, the place in words), alike for every process that reaches it and
    different for a copy: a SQLite file's inode (a copy is a new file; a file renamed in place keeps it), a server's
    own name for the database (MariaDB's port and database, not its host name, which a container or a failover
    changes; PostgreSQL's database name and object id),
    whatever host name a process reaches the server by. A ledger in memory has no home ("")."""
    if path is None:
        return "", ""
    if isinstance(path, Path):
        return f"sqlite:inode {path.stat().st_ino}", f"{path.resolve()} on {socket.gethostname()}"
    with engine.connect() as connection:
        if connection.dialect.name == "postgresql":
            name, oid = connection.execute(text(
                "SELECT current_database(), oid FROM pg_database WHERE datname = current_database()")).one()
            return f"postgresql:{name}:{oid}", str(path)
        port, name = connection.execute(text("SELECT @@port, DATABASE()")).one()
        return f"mysql:{port}/{name}", str(path)
