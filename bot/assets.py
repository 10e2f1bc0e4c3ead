"""Non-code assets — SPARQL queries, the trace schema, the report stylesheet — found by name in one place.

A checkout (or an editable install) reads them from the source tree's ``queries/`` and ``xslt/``; a regular
install reads the copies setup.cfg's ``data_files`` put under ``<prefix>/share/refbot/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bot.errors import ConfigError

KINDS = {"queries": ".rq", "xslt": ""}


def asset_dir(kind: str) -> Path:
    if kind not in KINDS:
        raise ValueError(f"unknown asset kind {kind!r}")
    for candidate in (Path(__file__).resolve().parent.parent / kind, Path(sys.prefix) / "share" / "refbot" / kind):
        if candidate.is_dir():
            return candidate
    raise ConfigError(f"refbot's {kind}/ directory is missing", hint="reinstall refbot (`pip install .`)")


def asset_path(kind: str, name: str) -> Path:
    """``asset_path("queries", "worklist")`` → …/queries/worklist.rq; names are bare file names, never paths."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ConfigError(f"not an asset name: {name!r}")
    path = asset_dir(kind) / (name if name.endswith(KINDS[kind]) else name + KINDS[kind])
    if not path.is_file():
        known = ", ".join(asset_names(kind))
        raise ConfigError(f"no {kind} asset named {name!r}", hint=f"known: {known}")
    return path


def asset_names(kind: str) -> list[str]:
    suffix = KINDS[kind]
    return sorted(p.name[: -len(suffix)] if suffix else p.name
                  for p in asset_dir(kind).glob(f"*{suffix}") if p.is_file() and not p.name.endswith(".md"))


def query_text(name: str) -> str:
    return asset_path("queries", name).read_text(encoding="utf-8")
