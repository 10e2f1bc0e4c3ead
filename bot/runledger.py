"""The ledger of scheduled runs (SQLite): which statements each run has finished, with their trace elements.

A run that is killed loses at most the statements in progress: each finished statement is committed on its own.
Started again with the same worklist, the unfinished run is resumed; statements any run checked within
``recheck_days`` are skipped. The run's trace is assembled from the ledger, so it holds every statement once.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import IO

from bot.clock import Clock, stamp, system_clock
from bot.errors import ConfigError, InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, started TEXT NOT NULL, finished TEXT,
    description TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS items (
    run_id INTEGER NOT NULL REFERENCES runs(id), item TEXT NOT NULL, element TEXT NOT NULL,
    PRIMARY KEY (run_id, item));
CREATE TABLE IF NOT EXISTS checks (
    run_id INTEGER NOT NULL REFERENCES runs(id), guid TEXT NOT NULL, item TEXT NOT NULL, outcome TEXT NOT NULL,
    checked TEXT NOT NULL, element TEXT NOT NULL, PRIMARY KEY (run_id, guid));
CREATE INDEX IF NOT EXISTS checks_by_guid ON checks (guid, checked);
CREATE TABLE IF NOT EXISTS run_elements (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id), element TEXT NOT NULL);
"""
# How long a process waits for another's write to the ledger (each is a statement or a short transaction).
BUSY_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Run:
    id: int
    key: str
    started: str
    resumed: bool


class RunLedger:
    def __init__(self, path: Path | None, *, clock: Clock = system_clock) -> None:
        """``None``: a ledger in memory, for a run that is not resumed (`refbot check`). ``clock`` stamps runs and
        checks."""
        self.path = path
        self.clock = clock
        self._claims: dict[int, IO[str]] = {}
        try:
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                if not path.exists():  # only its owner may read it; SQLite gives its -wal and -shm the same mode
                    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
            self.db = sqlite3.connect(str(path) if path is not None else ":memory:", isolation_level=None,
                                      timeout=BUSY_TIMEOUT_S)
            self._write_ahead()
            self.db.execute("PRAGMA synchronous=FULL")
            with self.transaction():  # another process may be creating or upgrading the same ledger at this instant
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                columns = {row[1] for row in self.db.execute("PRAGMA table_info(runs)")}
                if "seconds" not in columns:  # a ledger from before runs counted their time
                    self.db.execute("ALTER TABLE runs ADD COLUMN seconds REAL NOT NULL DEFAULT 0")
        except (OSError, sqlite3.Error) as error:
            raise ConfigError(f"cannot open the run ledger {path}: {error}",
                              hint="set [run] ledger to a writable file, or pass --ledger") from None

    def _write_ahead(self) -> None:
        """WAL mode. Switching a new file to it needs the file to itself, and SQLite answers "locked" at once,
        without waiting, while another process opens the same new ledger: wait here."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def __enter__(self) -> RunLedger:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        for handle in self._claims.values():
            Path(handle.name).unlink(missing_ok=True)  # (a process that opened it before sees it gone, see claim)
            handle.close()  # and the lock goes with the file
        self._claims.clear()
        self.db.close()

    def claim(self, run: Run) -> None:
        """Hold the run for this process until :meth:`close` (or the process's end, however it ends): a second
        process resuming the same run would check the same statements again. InputError when another holds it."""
        if self.path is None or run.id in self._claims:
            return
        import fcntl

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

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing (the connection commits each statement on its own otherwise), and no other process
        writes in between. Inside another transaction: part of that one."""
        if self.db.in_transaction:
            yield
            return
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def open_run(self, key: str, description: str, *, new: bool = False) -> Run:
        """The latest unfinished run with this key, or a new one (``new``: a new one whatever there is). Looked
        up and made in one transaction: processes opening the same worklist at the same instant share one run."""
        with self.transaction():
            if not new:
                row = self.db.execute("SELECT id, started FROM runs WHERE key = ? AND finished IS NULL "
                                      "ORDER BY id DESC LIMIT 1", (key,)).fetchone()
                if row:
                    return Run(row[0], key, row[1], True)
            started = stamp(self.clock())
            cursor = self.db.execute("INSERT INTO runs (key, started, description) VALUES (?, ?, ?)",
                                     (key, started, description))
            return Run(int(cursor.lastrowid or 0), key, started, False)

    def finish(self, run: Run) -> None:
        self.db.execute("UPDATE runs SET finished = ? WHERE id = ?", (stamp(self.clock()), run.id))

    def add_seconds(self, run: Run, seconds: float) -> float:
        """Count time spent on the run (each invocation adds its own); the run's total."""
        self.db.execute("UPDATE runs SET seconds = seconds + ? WHERE id = ?", (max(0.0, seconds), run.id))
        return float(self.db.execute("SELECT seconds FROM runs WHERE id = ?", (run.id,)).fetchone()[0])

    def done(self, run: Run) -> set[str]:
        return {row[0] for row in self.db.execute("SELECT guid FROM checks WHERE run_id = ?", (run.id,))}

    def recently_checked(self, run: Run, days: float) -> set[str]:
        """GUIDs another run checked less than ``days`` ago (with any outcome but error)."""
        since = stamp(self.clock() - timedelta(days=days))
        return {row[0] for row in self.db.execute(
            "SELECT DISTINCT guid FROM checks WHERE run_id != ? AND checked >= ? AND outcome != 'error'",
            (run.id, since))}

    def record_item(self, run: Run, item: str, element: str) -> None:
        # The item as first read in this run: statements checked before a resume keep the revision they saw.
        self.db.execute("INSERT OR IGNORE INTO items (run_id, item, element) VALUES (?, ?, ?)",
                        (run.id, item, element))

    def record(self, run: Run, guid: str, item: str, outcome: str, element: str) -> bool:
        """One finished statement, committed at once (autocommit). False when the run already has it (another
        process working on the same run recorded it first): the first record stands."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO checks (run_id, guid, item, outcome, checked, element) VALUES (?, ?, ?, ?, ?, ?)",
            (run.id, guid, item, outcome, stamp(self.clock()), element))
        return cursor.rowcount == 1

    def record_run_element(self, run: Run, element: str) -> None:
        """The trace's run element as last written (judge, options, endpoints): a run's trace can then be put
        together again from the ledger alone, for review, without loading the judge."""
        self.db.execute("INSERT OR REPLACE INTO run_elements (run_id, element) VALUES (?, ?)", (run.id, element))

    def run_element(self, run_id: int) -> str | None:
        row = self.db.execute("SELECT element FROM run_elements WHERE run_id = ?", (run_id,)).fetchone()
        return row[0] if row else None

    def run(self, run_id: int) -> Run | None:
        row = self.db.execute("SELECT key, started FROM runs WHERE id = ?", (run_id,)).fetchone()
        return Run(run_id, row[0], row[1], False) if row else None

    def latest_run(self) -> Run | None:
        row = self.db.execute("SELECT id, key, started FROM runs ORDER BY id DESC LIMIT 1").fetchone()
        return Run(row[0], row[1], row[2], False) if row else None

    def forget(self, run: Run, guids: list[str]) -> None:
        """Drop these statements' records, so that resuming the run checks them again (refbot itself failed)."""
        with self.transaction():
            self.db.executemany("DELETE FROM checks WHERE run_id = ? AND guid = ?", [(run.id, g) for g in guids])

    def items(self, run: Run, *, with_empty: bool = False) -> list[tuple[str, str, list[tuple[str, str]]]]:
        """(item, item element, [(statement GUID, statement element)]) in the order the items were first recorded,
        each item's statements in the order they finished; items none of whose statements finished only
        ``with_empty``."""
        result = []
        for item, element in self.db.execute("SELECT item, element FROM items WHERE run_id = ? ORDER BY rowid",
                                             (run.id,)):
            statements = [(row[0], row[1]) for row in self.db.execute(
                "SELECT guid, element FROM checks WHERE run_id = ? AND item = ? ORDER BY rowid", (run.id, item))]
            if statements or with_empty:
                result.append((item, element, statements))
        return result

    def counts(self, run: Run) -> dict[str, int]:
        return dict(self.db.execute("SELECT outcome, COUNT(*) FROM checks WHERE run_id = ? GROUP BY outcome",
                                    (run.id,)).fetchall())
