"""The settings a run is bound to. Pure.

Two kinds: those that change an outcome (where evidence comes from and how it is read, ranked and judged: the
checking, judge, paragraph, search, archive, Wikipedia and Wikidata settings, the endpoints, the languages, the
threshold and the shipped calibration), which every process that checks a run's statements must share — a run
resumed with others is another run, and a worker with others refuses the run, naming what differs; and those that
shape the worklist (which statements need checking: ``[run] recheck_days``, the ignored reference properties), which
travel with a run that workers share, so that workers use the run's and not their own.

A setting is named by its flat name (``paragraph_min_chars``) and compared as :meth:`Options.public` shows it (URLs
without a password; no secret is ever among them).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from bot.options import FLAT, Options, from_text, section_key

OUTCOME = (
    "check_source", "check_all_sources", "check_kg_top", "check_kg_records", "check_strategy", "check_top",
    "check_require_mention", "check_require_subject", "check_unnamed", "check_naming", "check_across",
    "check_value_words", "check_documents",
    "check_paragraphs", "check_embeddings", "check_embedding_model",
    "judge_backend", "judge_model", "template", "threshold", "justify", "judge_context", "judge_dtype", "judge_echo",
    "paragraph_min_chars", "paragraph_max_chars",
    "search_backend", "search_url", "search_results", "search_language", "search_allow_domains",
    "search_deny_domains",
    "archive_enabled", "archive_availability_url", "archive_cdx_url", "archive_web_url",
    "wikipedia_wiki", "wikipedia_article_url", "wikipedia_chunk_chars", "wikidata_api_url", "sparql_endpoint",
    "fetch_max_bytes", "fetch_max_redirects", "fetch_robots", "fetch_allow_addresses",
    "languages",
)
# Not an option: the calibration shipped with this copy of refbot (another version may map support differently).
CALIBRATION = "calibration"
WORKLIST = ("run_recheck_days", "ignored_reference_properties")


def outcome_settings(options: Options) -> dict[str, str]:
    """Every setting that changes an outcome, by flat name, as shown: what a run's checkers must share."""
    shown = options.public()
    return {name: shown[name] for name in OUTCOME} | {CALIBRATION: _calibration()}


def worklist_settings(options: Options) -> dict[str, str]:
    """The settings that shape which statements a run checks, as shown: what travels with a run."""
    shown = options.public()
    return {name: shown[name] for name in WORKLIST}


def digest(settings: Mapping[str, str]) -> str:
    """A short name for a set of settings: equal settings, equal digest."""
    return hashlib.sha256(json.dumps(dict(settings), sort_keys=True).encode()).hexdigest()[:16]


def shared(options: Options) -> str:
    """What a run that workers share records of its settings (``runs.shared`` in the ledger)."""
    return json.dumps({"outcome": outcome_settings(options), "worklist": worklist_settings(options)}, sort_keys=True)


def recorded(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(outcome settings, worklist settings) as a run recorded them; empty for a run that recorded none."""
    try:
        data: Any = json.loads(text) if text else {}
    except ValueError:
        data = {}
    outcome, worklist = (data.get(kind) if isinstance(data, dict) else None for kind in ("outcome", "worklist"))
    return _strings(outcome), _strings(worklist)


def _strings(part: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in part.items()} if isinstance(part, dict) else {}


def differences(run: Mapping[str, str], worker: Mapping[str, str]) -> list[str]:
    """The settings that differ, each as ``[paragraph] min_chars (the run's 100, this worker's 300)``."""
    names = [name for name in dict.fromkeys([*run, *worker]) if run.get(name) != worker.get(name)]
    return [f"{_shown_name(name)} (the run's {_value(run.get(name))}, this worker's {_value(worker.get(name))})"
            for name in names]


def with_worklist(options: Options, settings: Mapping[str, str]) -> Options:
    """``options`` with the worklist settings a run recorded (those it recorded; others as they are)."""
    values = {name: from_text(name, value) for name, value in settings.items() if name in WORKLIST and name in FLAT}
    return options.replaced(**values)


def _shown_name(name: str) -> str:
    if name == CALIBRATION:
        return "the shipped calibration (another refbot version)"
    section, key = section_key(name)
    return f"[{section}] {key}"


def _value(value: str | None) -> str:
    return "unset" if value is None else (value or "empty")


@cache
def _calibration() -> str:
    text = resources.files("bot.judge").joinpath("calibration.json").read_bytes()
    return hashlib.sha256(text).hexdigest()[:12]
