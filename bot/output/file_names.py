"""Where a run's files go in the reports folder: ``run-N`` (a verify run's ``verify-N``) with ``.xml``, ``.html`` and
the exports' suffixes (``-quickstatements.tsv``, ``-wrong-values.tsv``, ``.jsonl``, ``.ttl``).

Run ids are the ledger's own, so two ledgers each have a run 1: a reports folder is claimed by the first ledger whose
run files are written there (``.refbot-ledger`` keeps where that ledger lives), whose runs keep the plain names; any
other ledger's runs there are named with a short fingerprint of where it lives (``run-1-3f9a20c1``), so that switching
ledgers never overwrites another ledger's run files."""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path

from bot.errors import InputError
from bot.ledger import database
from bot.ledger.ledger import RunLedger

CLAIM = ".refbot-ledger"


def run_stem(reports: Path, ledger: RunLedger, run_id: int) -> Path:
    """``reports/run-N`` or ``reports/verify-N`` for a run of the ledger the folder is claimed by (the folder is
    claimed for this ledger when no ledger has claimed it yet); ``…-N-FINGERPRINT`` for another ledger's run."""
    record = ledger.run(run_id)
    kind = "verify" if record is not None and record.verify else "run"
    home, where = database.home(ledger.engine, ledger.path)
    if not home:  # a ledger in memory: a dry run's, whose files are named otherwise
        return reports / f"{kind}-{run_id}"
    owner = _owner(reports / CLAIM, home, where)
    if owner == home:
        return reports / f"{kind}-{run_id}"
    return reports / f"{kind}-{run_id}-{hashlib.sha1(home.encode()).hexdigest()[:8]}"


def _owner(claim: Path, home: str, where: str) -> str:
    """Who the folder is claimed by: read, or claimed for ``home`` when nobody has. The claim is written whole under
    a name of this process's own and linked into place (``os.link`` fails when the claim exists), so a claim is never
    seen half written, and two processes naming their first run at once cannot both claim the folder. InputError
    naming the file when the claim cannot be read (not text, or empty)."""
    try:
        return _read_claim(claim)
    except FileNotFoundError:
        pass
    claim.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=claim.parent, prefix=claim.name + ".",
                                     suffix=".new", delete=False) as file:
        file.write(f"{home}\n{where}\n")
    try:
        os.link(file.name, claim)
        return home
    except FileExistsError:  # claimed a moment ago by another process
        return _read_claim(claim)
    except OSError:  # a filesystem without hard links: created exclusively and written at once, which a reader
        return _create_claim(claim, home, where)  # can find empty for an instant (read again, then)
    finally:
        os.unlink(file.name)


def _create_claim(claim: Path, home: str, where: str) -> str:
    try:
        with claim.open("x", encoding="utf-8") as file:
            file.write(f"{home}\n{where}\n")
        return home
    except FileExistsError:
        for _ in range(20):
            try:
                return _read_claim(claim)
            except InputError:
                time.sleep(0.05)
        return _read_claim(claim)


def _read_claim(claim: Path) -> str:
    """The claiming ledger's identity, the claim's first line."""
    fix = f"delete {claim} (the next run written there claims the folder for its ledger) or write the run's files " \
          "to another folder with --reports"
    try:
        owner = claim.read_text(encoding="utf-8").split("\n", 1)[0].strip()
    except UnicodeDecodeError:
        raise InputError("the reports folder's claim is not refbot's (not UTF-8 text)", path=str(claim),
                         hint=fix) from None
    if not owner:
        raise InputError("the reports folder's claim is empty (left by a process that stopped while writing it)",
                         path=str(claim), hint=fix)
    return owner
