"""The ``--out`` file of ``refbot eval``: one JSON line per judged statement, appended and flushed as it comes,
so a run that is stopped loses nothing and the next run skips what is already judged."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from bot.datamodel import Compared, Contradiction, Judgement, Verdict
from bot.errors import ConfigError, InputError
from bot.redaction import open_private


def judgement_record(statement_id: str, label: bool, judgement: Judgement,
                     settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """One line of the ledger; ``settings`` are what else shaped the verdict (threshold, descriptions)."""
    record = {"id": statement_id, "label": label, **asdict(judgement), "settings": settings or {}}
    record["verdict"] = judgement.verdict.value
    return record


def judgement_from_record(record: dict[str, Any]) -> Judgement:
    """The judgement of a ledger line; a line written before a field existed gets the field's default."""
    fields = {key: record[key] for key in Judgement.__dataclass_fields__ if key in record}
    fields["verdict"] = Verdict(record["verdict"])
    fields["compared"] = tuple(Compared(**compared) for compared in record.get("compared", ()))
    contradiction = record.get("contradiction")
    fields["contradiction"] = Contradiction(**contradiction) if contradiction is not None else None
    return Judgement(**fields)


def read_ledger(path: Path) -> dict[str, dict[str, Any]]:
    """Records by id. A last line cut short (the process was killed while writing it) is ignored."""
    if not path.exists():
        return {}
    refused = InputError("not a file of judgements written by `refbot eval --out`", path=str(path), line=1,
                         hint="pass a new --out file; refbot appends only to its own")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise refused from None
    if text and not text.startswith('{"id": '):  # every record begins so (json.dumps of judgement_record)
        raise refused
    lines = text.split("\n")  # not splitlines(): U+2028 may occur inside JSON
    while lines and not lines[-1]:
        lines.pop()
    records: dict[str, dict[str, Any]] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            judgement_from_record(record)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            if number == len(lines):
                break
            raise InputError("not a judgement record", path=str(path), line=number,
                             hint="remove the line or write results to a new --out file") from None
        records[record["id"]] = record
    return records


def check_same_judge(records: dict[str, dict[str, Any]], model: str, template: str, path: Path,
                     settings: dict[str, Any] | None = None) -> None:
    """Refuse to resume a ledger written by another judge, or with other settings: results would mix."""
    for record in records.values():
        if (record["model"], record["template"]) != (model, template):
            raise ConfigError(f"{path} holds judgements by {record['model']} with template "
                              f"{record['template']!r}, not {model} with {template!r}",
                              hint="pass another --out file to keep runs apart")
        if settings is not None and record.get("settings", {}) != settings:
            raise ConfigError(f"{path} holds judgements made with {record.get('settings')}, not {settings}",
                              hint="pass another --out file to keep runs apart")


class LedgerWriter:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._repair_tail(path)
        self._stream: IO[str] = open_private(path, "a")  # its settings name the endpoint: owner only (0600)

    @staticmethod
    def _repair_tail(path: Path) -> None:
        """Drop a half-written last line, so new records start on a line of their own."""
        if not path.exists() or path.stat().st_size == 0:
            return
        data = path.read_bytes()
        if data.endswith(b"\n"):
            return
        cut = data.rfind(b"\n") + 1
        with open_private(path, "wb") as stream:
            stream.write(data[:cut])

    def append(self, record: dict[str, Any]) -> None:
        self._stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._stream.flush()

    def close(self) -> None:
        self._stream.close()
