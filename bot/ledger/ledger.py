"""The ledger of scheduled runs: which statements each run has finished, with their trace elements — in a SQLite
file (the default) or a database server many processes share (``bot.ledger.database``: PostgreSQL, MariaDB).

A run that is killed loses at most the statements in progress: each finished statement is committed on its own.
Started again with the same worklist, the unfinished run is resumed; statements any run checked within
``recheck_days`` are skipped. The run's trace is assembled from the ledger, so it holds every statement once: a
statement is recorded once per run by the database's uniqueness constraint, whichever process records it first.
"""

from __future__ import annotations

import fcntl
import os
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

from sqlalchemy import case, func, select, text
from sqlalchemy.engine import Connection, Engine, Row
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError, SQLAlchemyError

from bot.clock import Clock, stamp, system_clock
from bot.errors import ConfigError, InputError, ServiceError
from bot.ledger import database
from bot.ledger.tables import checks, items, ledger_identity, queued, run_elements, runs
from bot.options import RunOptions

BUSY_TIMEOUT_S = database.BUSY_TIMEOUT_S
NO_LEDGER_HINT = ("`refbot run` (or `run --enqueue`) makes it; point [run] ledger or --ledger at the ledger it "
                  "wrote")


# What a verify run's key starts with: the same worklist checked and verified are two runs.
VERIFY_KEY = "verify:"


@dataclass(frozen=True)
class Run:
    id: int
    key: str
    started: str
    resumed: bool

    @property
    def verify(self) -> bool:
        """A verify run's (`refbot verify`): its key starts with VERIFY_KEY."""
        return self.key.startswith(VERIFY_KEY)


@dataclass(frozen=True)
class Queue:
    """Where a run its workers check stands: items enqueued, finished, and tasks started on an item again (a worker
    died or was stopped before it acknowledged the task)."""

    items: int
    finished: int
    redelivered: int
    settings: str
    properties: tuple[str, ...]
    error: str = ""  # what ended one of its tasks for good ("" nothing)
    oldest: str | None = None  # when the oldest task still unfinished was sent (None: none is)

    @property
    def left(self) -> int:
        return self.items - self.finished


@dataclass(frozen=True)
class ItemStart:
    """What a worker finds as it starts on an item (:meth:`RunLedger.start_item`)."""

    go: bool  # False: finished already, nothing to do
    stopped: str = ""  # the worker that had the item in hand and ended without letting go of it ("" none)
    stops: int = 0  # how many workers ended so


@dataclass(frozen=True)
class SharedRun:
    """What a worker reads of a run before it takes its tasks: the settings digest its workers must share, the
    settings it recorded (JSON, ``bot.shared_settings.shared``), its worklist's properties, and whether it finished."""

    run: Run
    finished: str | None
    settings: str
    shared: str
    properties: tuple[str, ...]


class RunLedger:
    def __init__(self, target: Path | str | None, *, clock: Clock = system_clock, credentials: Path | None = None,
                 environ: dict[str, str] | None = None, create: bool = True) -> None:
        """``target``: a path (SQLite), a database URL (``bot.ledger.database``), or ``None``: a ledger in memory,
        for a run that is not resumed (`refbot check`). ``clock`` stamps runs and checks; ``credentials`` and
        ``environ``: where a server's password comes from when its URL has none. ``create`` False (a command that
        only reads): InputError naming the ledger where there is none yet, instead of making one. ConfigError for a
        file that is not a ledger (nothing is written to it)."""
        self.url = database.ledger_url(target, credentials=credentials, environ=environ)
        self.server = database.is_url(target) and self.url.get_backend_name() != "sqlite"
        # What the ledger is called in messages: its path, or its URL without the password.
        self.path: Path | str | None = None  # in memory
        if self.server:
            self.path = database.hidden(self.url)
        elif target is not None:  # a file, named by its path or a sqlite:/// URL
            self.path = Path(self.url.database or "") if database.is_url(target) else Path(target)
        self.clock = clock
        self._claims: dict[int, Any] = {}
        self._identity: str | None = None
        # Each thread's open transaction, and MariaDB's named locks taken inside it (released after it): a thread's
        # call never joins another thread's transaction.
        self._local = threading.local()
        if isinstance(self.path, Path):
            self._check_file(self.path, create=create)
        try:
            if isinstance(self.path, Path) and not self.path.exists():
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # only its owner may read it; SQLite gives its -wal and -shm the same mode
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            self.engine: Engine = database.create(self.url)
            holds = create or not self.server or database.holds_ledger(self.engine)
            if holds:
                database.migrate(self.engine)
        except (OSError, SQLAlchemyError) as error:
            reason = getattr(error, "orig", None) or error
            hint = ("set [run] ledger to a writable file, or pass --ledger" if not self.server else
                    "check that the database server runs and the user may create tables in it (password from "
                    "REFBOT_RUN_LEDGER_PASSWORD or [run] ledger_credentials)")
            raise ConfigError(f"cannot open the run ledger {self.path or 'in memory'}: "
                              f"{str(reason).splitlines()[0] if str(reason) else type(reason).__name__}",
                              hint=hint) from None
        if not holds:
            self.engine.dispose()
            raise InputError(f"the database {self.path} holds no run ledger yet", hint=NO_LEDGER_HINT)

    @staticmethod
    def _check_file(path: Path, *, create: bool) -> None:
        """A ledger's file: none yet (made unless ``create`` is False), or a SQLite file of refbot's ledger."""
        if not path.exists():
            if not create:
                raise InputError(f"there is no run ledger at {path}", hint=NO_LEDGER_HINT)
            return
        problem = database.sqlite_problem(path)
        if problem:
            raise ConfigError(f"{path} is not a run ledger: {problem}; refbot leaves it as it is",
                              hint="set [run] ledger (or --ledger) to the ledger's file, or to a new file's path")

    @classmethod
    def of(cls, options: RunOptions, *, clock: Clock = system_clock, create: bool = True) -> RunLedger:
        """The ledger ``[run]`` names, with its credentials file (``create``: as :class:`RunLedger` takes it)."""
        credentials = Path(options.ledger_credentials).expanduser() if options.ledger_credentials else None
        return cls(options.ledger, clock=clock, credentials=credentials, create=create)

    def __enter__(self) -> RunLedger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for run_id, held in self._claims.items():
            if isinstance(held, IO) or hasattr(held, "fileno"):
                Path(held.name).unlink(missing_ok=True)  # (a process that opened it before sees it gone, see claim)
                held.close()  # and the lock goes with the file
            else:
                held.close()  # the server's session lock ends with its connection
        self._claims.clear()
        self.engine.dispose()

    # -- holding a run -------------------------------------------------------------------------------------------
    def claim(self, run: Run) -> None:
        """Hold the run for this process until :meth:`close` (or the process's end, however it ends): a second
        process resuming the same run would check the same statements again. InputError when another holds it."""
        if self.path is None or run.id in self._claims:
            return
        if self.server:
            self._claims[run.id] = self._session_lock(run)
            return
        assert isinstance(self.path, Path)
        lock = self.path.with_name(f"{self.path.name}.run-{run.id}.lock")
        while True:
            handle = lock.open("a+")
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.seek(0)
                holder = handle.read().strip() or "another process"
                handle.close()
                raise InputError(f"run {run.id} of {self.path} is being checked by {holder}",
                                 hint="wait for it to finish, or start a separate run with --new") from None
            try:
                if os.stat(lock).st_ino == os.fstat(handle.fileno()).st_ino:
                    break  # the file still at that name: the lock is the run's
            except FileNotFoundError:
                pass
            handle.close()  # its holder removed it as we opened it: take the new one
        handle.seek(0)
        handle.truncate()
        handle.write(f"process {os.getpid()}\n")
        handle.flush()
        self._claims[run.id] = handle

    def _session_lock(self, run: Run) -> Connection:
        """A connection holding the server's session lock on the run (PostgreSQL's advisory lock, MariaDB's named
        lock): it ends with the connection, however the process ends."""
        connection = self.engine.connect()
        name = f"refbot-run-{run.id}-{self.url.database}"[:64]
        if connection.dialect.name == "postgresql":
            held = connection.execute(text("SELECT pg_try_advisory_lock(hashtext(:name))"), {"name": name}).scalar()
        else:
            held = connection.execute(text("SELECT GET_LOCK(:name, 0)"), {"name": name}).scalar() == 1
        connection.commit()
        if not held:
            connection.close()
            raise InputError(f"run {run.id} of {self.path} is being checked by another process",
                             hint="wait for it to finish, or start a separate run with --new")
        return connection

    # -- transactions ----------------------------------------------------------------------------------------
    @contextmanager
    def transaction(self, lock: str | None = None) -> Iterator[Connection]:
        """All or nothing; on SQLite no other process writes in between, and with ``lock`` on a server no other
        process runs a transaction with the same lock until this one commits. Inside another transaction: part of
        that one (its lock, on MariaDB, held until that one ends)."""
        current: Connection | None = getattr(self._local, "connection", None)
        if current is not None:
            if lock is not None and current.dialect.name == "postgresql":
                current.execute(text("SELECT pg_advisory_xact_lock(hashtext(:name))"), {"name": lock})
            elif lock is not None and current.dialect.name in ("mysql", "mariadb"):
                database.take_named_lock(current, lock)
                self._local.release.append(lock)
            yield current
            return
        try:
            self._local.release = []
            with database.locked_transaction(self.engine, lock, release=self._local.release) as connection:
                self._local.connection = connection
                try:
                    yield connection
                finally:
                    self._local.connection = None
        except (OperationalError, InterfaceError) as error:  # the server went away (restarted, unreachable)
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()
            raise ServiceError(reason[0] if reason else type(error).__name__, service="the run ledger",
                               url=str(self.path),
                               hint="check that the database server runs; what was committed is kept") from None

    def _rows(self, statement: Any) -> list[Row]:
        with self.transaction() as connection:
            return list(connection.execute(statement))

    def _change(self, statement: Any) -> int:
        """An update or delete, committed (unless inside a transaction); the rows it changed."""
        with self.transaction() as connection:
            return int(connection.execute(statement).rowcount)

    def _insert_once(self, connection: Connection, table: Any, values: dict[str, Any], key: Any) -> bool:
        """Insert the row unless the table's uniqueness constraint already holds one with its key: True when
        inserted. The constraint decides (a savepoint keeps the transaction usable after the refusal)."""
        try:
            with connection.begin_nested():
                connection.execute(table.insert().values(**values))
            return True
        except IntegrityError:
            if connection.execute(select(table.c.id).where(key).limit(1)).first() is None:
                raise  # not a duplicate: another constraint refused it
            return False

    # -- runs ------------------------------------------------------------------------------------------------
    def open_run(self, key: str, description: str, *, new: bool = False) -> Run:
        """The latest unfinished run with this key, or a new one (``new``: a new one whatever there is). Looked
        up and made at once for every process: processes opening the same worklist at the same instant share one
        run."""
        with self.transaction(lock=f"refbot-open-{key}") as connection:
            if not new:
                row = connection.execute(
                    select(runs.c.id, runs.c.started).where(runs.c.key == key, runs.c.finished.is_(None))
                    .order_by(runs.c.id.desc()).limit(1)).first()
                if row:
                    return Run(int(row.id), key, row.started, True)
            started = stamp(self.clock())
            result = connection.execute(runs.insert().values(key=key, started=started, description=description))
            inserted = result.inserted_primary_key
            assert inserted is not None
            return Run(int(inserted[0]), key, started, False)

    def finish(self, run: Run) -> None:
        self._change(runs.update().where(runs.c.id == run.id).values(finished=stamp(self.clock())))

    def add_seconds(self, run: Run, seconds: float) -> float:
        """Count time spent on the run (each invocation adds its own); the run's total."""
        with self.transaction() as connection:
            connection.execute(runs.update().where(runs.c.id == run.id)
                               .values(seconds=runs.c.seconds + max(0.0, seconds)))
            return float(connection.execute(select(runs.c.seconds).where(runs.c.id == run.id)).scalar_one())

    def run(self, run_id: int) -> Run | None:
        rows = self._rows(select(runs.c.key, runs.c.started).where(runs.c.id == run_id))
        return Run(run_id, rows[0].key, rows[0].started, False) if rows else None

    def latest_run(self) -> Run | None:
        rows = self._rows(select(runs.c.id, runs.c.key, runs.c.started).order_by(runs.c.id.desc()).limit(1))
        return Run(int(rows[0].id), rows[0].key, rows[0].started, False) if rows else None

    def run_finished(self, run: Run) -> str | None:
        """When the run finished (None: not yet)."""
        rows = self._rows(select(runs.c.finished).where(runs.c.id == run.id))
        return rows[0].finished if rows else None

    def run_seconds(self, run: Run) -> float:
        """The time spent on the run, by every process that worked on it."""
        rows = self._rows(select(runs.c.seconds).where(runs.c.id == run.id))
        return float(rows[0].seconds) if rows else 0.0

    def run_by_key(self, key: str) -> int | None:
        """The latest run with this key, finished or not."""
        rows = self._rows(select(runs.c.id).where(runs.c.key == key).order_by(runs.c.id.desc()).limit(1))
        return int(rows[0].id) if rows else None

    # -- statements ------------------------------------------------------------------------------------------
    def done(self, run: Run, items: Sequence[str] = ()) -> set[str]:
        """GUIDs the run has finished (only those of ``items`` when given)."""
        query = select(checks.c.guid).where(checks.c.run_id == run.id)
        if items:
            query = query.where(checks.c.item.in_(items))
        return {row.guid for row in self._rows(query)}

    def recently_checked(self, run: Run, days: float, items: Sequence[str] = ()) -> set[str]:
        """GUIDs another run checked less than ``days`` ago (with any outcome but error); of ``items`` only when
        given."""
        since = stamp(self.clock() - timedelta(days=days))
        query = select(checks.c.guid).distinct().where(checks.c.run_id != run.id, checks.c.checked >= since,
                                                       checks.c.outcome != "error")
        if items:
            query = query.where(checks.c.item.in_(items))
        return {row.guid for row in self._rows(query)}

    def record_item(self, run: Run, item: str, element: str) -> None:
        # The item as first read in this run: statements checked before a resume keep the revision they saw.
        with self.transaction() as connection:
            self._insert_once(connection, items, {"run_id": run.id, "item": item, "element": element},
                              (items.c.run_id == run.id) & (items.c.item == item))

    def record(self, run: Run, guid: str, item: str, outcome: str, element: str) -> bool:
        """One finished statement, committed at once. False when the run already has it (another process working
        on the same run recorded it first): the first record stands."""
        with self.transaction() as connection:
            return self._insert_once(
                connection, checks, {"run_id": run.id, "guid": guid, "item": item, "outcome": outcome,
                                     "checked": stamp(self.clock()), "element": element},
                (checks.c.run_id == run.id) & (checks.c.guid == guid))

    def record_run_element(self, run: Run, element: str) -> None:
        """The trace's run element as last written (judge, options, endpoints): a run's trace can then be put
        together again from the ledger alone, for review, without loading the judge."""
        with self.transaction() as connection:
            updated = connection.execute(run_elements.update().where(run_elements.c.run_id == run.id)
                                         .values(element=element)).rowcount
            if not updated and not self._insert_once(connection, run_elements,
                                                     {"run_id": run.id, "element": element},
                                                     run_elements.c.run_id == run.id):
                connection.execute(run_elements.update().where(run_elements.c.run_id == run.id)
                                   .values(element=element))

    def run_element(self, run_id: int) -> str | None:
        rows = self._rows(select(run_elements.c.element).where(run_elements.c.run_id == run_id))
        return rows[0].element if rows else None

    def forget(self, run: Run, guids: list[str]) -> None:
        """Drop these statements' records, so that resuming the run checks them again (refbot itself failed)."""
        if guids:
            self._change(checks.delete().where(checks.c.run_id == run.id, checks.c.guid.in_(guids)))

    def items(self, run: Run, *, with_empty: bool = False) -> list[tuple[str, str, list[tuple[str, str]]]]:
        """(item, item element, [(statement GUID, statement element)]) in the order the items were first recorded,
        each item's statements in the order they finished; items none of whose statements finished only
        ``with_empty``."""
        with self.transaction() as connection:
            recorded = list(connection.execute(select(items.c.item, items.c.element)
                                               .where(items.c.run_id == run.id).order_by(items.c.id)))
            statements: dict[str, list[tuple[str, str]]] = {}
            for row in connection.execute(select(checks.c.item, checks.c.guid, checks.c.element)
                                          .where(checks.c.run_id == run.id).order_by(checks.c.id)):
                statements.setdefault(row.item, []).append((row.guid, row.element))
        return [(row.item, row.element, statements.get(row.item, [])) for row in recorded
                if statements.get(row.item) or with_empty]

    def items_page(self, run: Run, first: int, count: int) -> list[tuple[str, str, list[tuple[str, str]]]]:
        """As :meth:`items`, for ``count`` of the run's finished statements from the ``first`` (0-based) only:
        contradicted statements first, then by item in the order the items were recorded, each item's statements in
        the order they finished. Only the page's elements are read: the order is found from ids and outcomes."""
        contradicted_last = case((checks.c.outcome == "contradicted", 0), else_=1)
        with self.transaction() as connection:
            chosen = list(connection.execute(
                select(checks.c.id, checks.c.item)
                .join(items, (items.c.run_id == checks.c.run_id) & (items.c.item == checks.c.item))
                .where(checks.c.run_id == run.id)
                .order_by(contradicted_last, items.c.id, checks.c.id).offset(max(0, first)).limit(max(0, count))))
            if not chosen:
                return []
            elements = {row.id: (row.guid, row.element) for row in connection.execute(
                select(checks.c.id, checks.c.guid, checks.c.element)
                .where(checks.c.id.in_([row.id for row in chosen])))}
            wanted = list(dict.fromkeys(row.item for row in chosen))
            item_elements = {row.item: row.element for row in connection.execute(
                select(items.c.item, items.c.element).where(items.c.run_id == run.id, items.c.item.in_(wanted)))}
        page: list[tuple[str, str, list[tuple[str, str]]]] = []
        for row in chosen:  # an item split by the order (contradicted first) is shown where each part falls
            if not page or page[-1][0] != row.item:
                page.append((row.item, item_elements[row.item], []))
            page[-1][2].append(elements[row.id])
        return page

    def outcomes(self, run: Run, guids: Sequence[str]) -> list[str]:
        """The outcomes the run recorded for these GUIDs (or a verify run's reference keys), those it has."""
        if not guids:
            return []
        return [row.outcome for row in self._rows(
            select(checks.c.outcome).where(checks.c.run_id == run.id, checks.c.guid.in_(list(guids))))]

    def counts(self, run: Run) -> dict[str, int]:
        return {row.outcome: int(row.n) for row in self._rows(
            select(checks.c.outcome, func.count().label("n")).where(checks.c.run_id == run.id)
            .group_by(checks.c.outcome))}

    # -- runs checked by workers (refbot run --enqueue, refbot worker) ---------------------------------------
    @property
    def identity(self) -> str:
        """The ledger's own name, made with it and kept in it: alike for every process that reaches this database,
        whatever host name or user it reaches it by (the queues of its runs are named after it)."""
        if self._identity is None:
            here, here_text = database.home(self.engine, self.path)
            with self.transaction(lock="refbot-ledger-identity") as connection:
                row = connection.execute(select(ledger_identity).limit(1)).first()
                if row is None:  # (the migration makes it; a ledger whose row was deleted gets a new one)
                    found = uuid.uuid4().hex[:16]
                    connection.execute(ledger_identity.insert().values(identity=found, home=here, home_text=here_text))
                elif not row.home:  # made before ledgers knew where they live: here
                    found = row.identity
                    connection.execute(ledger_identity.update().values(home=here, home_text=here_text))
                elif row.home != here and row.home_text == here_text:  # the same place, another file
                    raise InputError(
                        f"the ledger {self.path} is not the file its identity ({row.identity}) was made for: the file "
                        "at this path was replaced since (a backup restored, or a copy put in its place)",
                        hint="if it is this ledger's own backup and nothing uses the replaced file any more: `refbot "
                             "run --ledger-moved`; if it is a copy of a ledger used elsewhere: `refbot run "
                             "--new-identity`")
                elif row.home != here:
                    raise InputError(
                        f"the ledger {self.path} is a copy of the ledger at {row.home_text or row.home}: it holds that "
                        f"ledger's identity ({row.identity}), after which the queues and workers of its runs are "
                        f"named, so its workers would take that ledger's tasks",
                        hint="give this ledger an identity of its own: `refbot run --new-identity` (its unfinished "
                             "runs go to its own queues when enqueued again); if the ledger was moved here and "
                             "nothing uses it there any more: `refbot run --ledger-moved`")
                else:
                    found = row.identity
            self._identity = str(found)
        return self._identity

    @property
    def place(self) -> str:
        """Where this ledger is, in words, as a message to an operator names it (a file on a host, a database)."""
        return database.home(self.engine, self.path)[1] or "a ledger in memory"

    def lease_marks(self) -> tuple[str, str]:
        """The marks of the ledger's lease on the broker (``bot.distributed.lease``): the one the broker names, the
        one about to replace it ("" each: none yet)."""
        self.identity  # (a copy this file's home check refuses is refused here already)
        with self.transaction() as connection:
            row = connection.execute(select(ledger_identity.c.lease, ledger_identity.c.lease_next).limit(1)).first()
        return (str(row.lease or ""), str(row.lease_next or "")) if row is not None else ("", "")

    def mark_lease(self, *, current: str | None = None, coming: str | None = None) -> None:
        """Record the lease's mark the broker names (``current``; the mark coming is then cleared) or the one about
        to replace it (``coming``)."""
        values = {"lease": current, "lease_next": ""} if current is not None else {"lease_next": coming or ""}
        with self.transaction() as connection:
            connection.execute(ledger_identity.update().values(**values))

    def new_identity(self) -> str:
        """Give this ledger an identity of its own (a copy of another, on purpose): made now, for here. Its
        unfinished runs' items count as never sent, so that enqueueing them again sends them to its own queues."""
        here, here_text = database.home(self.engine, self.path)
        found = uuid.uuid4().hex[:16]
        with self.transaction(lock="refbot-ledger-identity") as connection:
            row = connection.execute(select(ledger_identity).limit(1)).first()
            if row is not None and row.home == here:
                raise InputError(f"the ledger {self.path} is the one its identity ({row.identity}) was made for, not "
                                 f"a copy: a new identity would leave its runs' tasks on the queue without a ledger",
                                 hint="give the copy, not the original, an identity of its own (--ledger COPY)")
            connection.execute(ledger_identity.delete())
            connection.execute(ledger_identity.insert().values(identity=found, home=here, home_text=here_text))
            connection.execute(queued.update().where(queued.c.finished.is_(None)).values(sent=None))
        self._identity = found
        return found

    def ledger_moved(self) -> str:
        """This ledger is the one its identity was made for, moved here (the old place is no more): here is its home
        now, its identity and queues kept."""
        here, here_text = database.home(self.engine, self.path)
        with self.transaction(lock="refbot-ledger-identity") as connection:
            found = connection.execute(select(ledger_identity.c.identity).limit(1)).scalar()
            if found is None:
                found = uuid.uuid4().hex[:16]
                connection.execute(ledger_identity.insert().values(identity=found, home=here, home_text=here_text))
            else:
                connection.execute(ledger_identity.update().values(home=here, home_text=here_text))
        self._identity = str(found)
        return self._identity

    def enqueue(self, run: Run, worklist_items: Sequence[str], *, settings: str, properties: Sequence[str],
                shared: str = "") -> int:
        """Record the items put on the queue for ``run`` (each once), the settings its workers must share (their
        digest, and as ``shared`` records them) and its worklist's properties; an earlier task's error is cleared
        (its items are sent again). The number of items new to the run."""
        now = stamp(self.clock())
        with self.transaction() as connection:
            connection.execute(runs.update().where(runs.c.id == run.id)
                               .values(settings=settings, properties=",".join(properties), shared=shared, error=""))
            return sum(self._insert_once(connection, queued, {"run_id": run.id, "item": item, "enqueued": now},
                                         (queued.c.run_id == run.id) & (queued.c.item == item))
                       for item in dict.fromkeys(worklist_items))

    def send_unsent(self, run: Run, send: Callable[[list[str]], None], *, batch: int = 1, chunk: int = 500,
                    resend_before: str | None = None) -> int:
        """Send a task (``send``) for each ``batch`` of the run's unfinished items that no pending task holds —
        never sent, or whose task failed for good, or (``resend_before``: a stamp) last sent before then — and mark
        them sent; the tasks sent. A chunk of items at a time, under the run's lock, so that two processes
        enqueueing the run at once send each item once."""
        tasks = 0
        chunk = max(batch, chunk - chunk % batch)
        while True:
            with self.transaction(lock=f"refbot-send-{run.id}") as connection:
                due = queued.c.sent.is_(None) if resend_before is None else \
                    queued.c.sent.is_(None) | (queued.c.sent < resend_before)
                todo = list(connection.execute(
                    select(queued.c.item).where(queued.c.run_id == run.id, queued.c.finished.is_(None), due)
                    .order_by(queued.c.id).limit(chunk)).scalars())
                if not todo:
                    return tasks
                for start in range(0, len(todo), batch):
                    send(todo[start:start + batch])
                    tasks += 1
                connection.execute(queued.update().where(queued.c.run_id == run.id, queued.c.item.in_(todo))
                                   .values(sent=stamp(self.clock())))

    def fail_items(self, run: Run, items: Sequence[str], error: str) -> None:
        """A task of the run ended for good: ``error`` is the run's (``--status`` shows it), and its unfinished
        items are sent again by the next enqueue of the run."""
        with self.transaction() as connection:
            connection.execute(runs.update().where(runs.c.id == run.id).values(error=error))
            connection.execute(queued.update().where(queued.c.run_id == run.id, queued.c.item.in_(list(items)),
                                                     queued.c.finished.is_(None)).values(sent=None))

    def queue(self, run_id: int) -> Queue | None:
        """The run's queue (None: the run was not enqueued)."""
        with self.transaction() as connection:
            row = connection.execute(select(runs.c.settings, runs.c.properties, runs.c.error)
                                     .where(runs.c.id == run_id)).first()
            again = case((queued.c.deliveries > 1, queued.c.deliveries - 1), else_=0)
            counts = connection.execute(
                select(func.count(), func.count(queued.c.finished), func.coalesce(func.sum(again), 0))
                .where(queued.c.run_id == run_id)).one()
            oldest = connection.execute(select(func.min(queued.c.sent)).where(
                queued.c.run_id == run_id, queued.c.finished.is_(None))).scalar()
        if row is None or not counts[0]:
            return None
        return Queue(int(counts[0]), int(counts[1]), int(counts[2]), row.settings,
                     tuple(p for p in row.properties.split(",") if p), row.error, oldest)

    def shared_run(self, run_id: int) -> SharedRun | None:
        """What a task needs of its run, read without counting its queue. None: no such enqueued run."""
        found = self._shared_runs(runs.c.id == run_id)
        return found[0] if found else None

    def shared_runs(self) -> list[SharedRun]:
        """The enqueued runs not finished, oldest first: those a worker may serve."""
        return self._shared_runs(runs.c.finished.is_(None))

    def _shared_runs(self, where: Any) -> list[SharedRun]:
        rows = self._rows(select(runs.c.id, runs.c.key, runs.c.started, runs.c.finished, runs.c.settings,
                                 runs.c.shared, runs.c.properties).where(where, runs.c.settings != "")
                          .order_by(runs.c.id))
        return [SharedRun(Run(int(row.id), row.key, row.started, False), row.finished, row.settings, row.shared,
                          tuple(p for p in row.properties.split(",") if p)) for row in rows]

    def enqueued_among(self, run: Run, candidates: Sequence[str]) -> set[str]:
        """Which of ``candidates`` are items of the run's queue."""
        if not candidates:
            return set()
        return {row.item for row in self._rows(select(queued.c.item).where(
            queued.c.run_id == run.id, queued.c.item.in_(list(candidates))))}

    def start_item(self, run: Run, item: str, worker: str = "") -> ItemStart:
        """A worker (named ``worker``) starts on the item: its deliveries counted, the item in its hand. Whether to
        go on (not when the item is finished already: a task delivered again after its worker finished it but died
        before acknowledging), and the worker that had it in hand and ended without letting go of it (its process
        died mid-item), with how many workers ended so."""
        with self.transaction(lock=f"refbot-item-{run.id}") as connection:
            where = (queued.c.run_id == run.id) & (queued.c.item == item)
            row = connection.execute(select(queued.c.finished, queued.c.taken_by, queued.c.stops).where(where)).first()
            if row is None or row.finished is not None:
                return ItemStart(go=row is None)
            stops = int(row.stops) + (row.taken_by is not None)
            connection.execute(queued.update().where(where).values(
                deliveries=queued.c.deliveries + 1, taken_by=worker or "a worker", stops=stops))
        return ItemStart(go=True, stopped=row.taken_by or "", stops=stops)

    def let_go(self, run: Run, items: Sequence[str]) -> None:
        """The task that had these items in hand ended in refbot's hands (to be tried again, or failed): none of
        them is held by a worker that died."""
        self._change(queued.update().where(queued.c.run_id == run.id, queued.c.item.in_(list(items)))
                     .values(taken_by=None))

    def finish_item(self, run: Run, item: str) -> bool:
        """The item done; the run finished with its last item. True when this finished the run."""
        with self.transaction(lock=f"refbot-finish-{run.id}") as connection:
            connection.execute(queued.update().where(queued.c.run_id == run.id, queued.c.item == item,
                                                     queued.c.finished.is_(None))
                               .values(finished=stamp(self.clock()), taken_by=None))
            return self.finish_if_done(run)

    def finish_if_done(self, run: Run) -> bool:
        """Finish the run when none of its enqueued items is left; True when this finished it."""
        with self.transaction(lock=f"refbot-finish-{run.id}") as connection:
            left = connection.execute(select(queued.c.id).where(queued.c.run_id == run.id,
                                                                queued.c.finished.is_(None)).limit(1)).first()
            if left is not None:  # (one row is enough to know: an index lookup, whatever the run's size)
                return False
            return bool(connection.execute(runs.update().where(runs.c.id == run.id, runs.c.finished.is_(None))
                                           .values(finished=stamp(self.clock()))).rowcount)

    def unfinished_items(self, run: Run) -> list[str]:
        """The run's enqueued items no worker has finished, in the order they were enqueued."""
        return [row.item for row in self._rows(select(queued.c.item).where(queued.c.run_id == run.id,
                                                                           queued.c.finished.is_(None))
                                               .order_by(queued.c.id))]
