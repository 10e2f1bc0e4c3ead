"""A run's trace and report, from what the run left: its :class:`~bot.runs.RunResult` and its ledger.

:class:`TraceRecords` is how a run keeps each item and statement in its ledger (trace elements, their URLs
redacted); :func:`run_trace` assembles the trace of everything the run finished from those records, under the run's
settings; :func:`write_run` validates it and writes it with its HTML report.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from bot.checking.items import ItemContext
from bot.checking.records import StatementCheck
from bot.checking.statement import Tools
from bot.judge.engine import Judge
from bot.options import Options, judge_urls, uses
from bot.output import trace as traces
from bot.output.report import write_report
from bot.runledger import RunLedger
from bot.runs import RunResult
from bot.selection import endpoint_url


class RunParts(Protocol):
    """What the trace says a run was made with (``bot.wiring.Wiring`` has it all)."""

    options: Options

    @property
    def judge(self) -> Judge: ...

    @property
    def tools(self) -> Tools: ...

    @property
    def records(self) -> TraceRecords: ...


class TraceRecords:
    """Items and statements as trace elements, as the run ledger keeps them; ``services``: the configured
    services' URLs, whose requests' query values are never written (``bot.redaction``)."""

    def __init__(self, services: Sequence[str]) -> None:
        self.services = tuple(services)

    def item(self, context: ItemContext) -> str:
        return traces.to_string(traces.item_element(context, self.services))

    def statement(self, context: ItemContext, check: StatementCheck) -> str:
        return traces.to_string(traces.checked_statement_element(context, check, self.services))


def run_trace(result: RunResult, ledger: RunLedger, parts: RunParts) -> Any:
    """The run's trace (an lxml tree, valid against xslt/trace.xsd): every statement the run has finished, under
    its item as first read in the run, each item's statements in worklist order; the settings from ``parts``."""
    order = {statement.guid: index for index, statement in enumerate(result.selected)}
    record = ledger.run(result.run_id)
    assert record is not None, f"run {result.run_id} is not in the ledger it ran in"

    def in_order(pair: tuple[str, str]) -> int:
        return order.get(pair[0], len(order))

    items = [(traces.from_string(element), [traces.from_string(text) for _, text in sorted(statements, key=in_order)])
             for _, element, statements in ledger.items(record, with_empty=not result.kept)]
    return traces.assemble(run_info(result, parts), items)


def run_info(result: RunResult, parts: RunParts) -> traces.RunInfo:
    """The trace's account of the run: when, how long, with which judge, settings and services."""
    options, judge = parts.options, parts.judge
    endpoints = [("sparql", endpoint_url(options.sparql.endpoint)), ("wikidata-api", options.wikidata.api_url)]
    if uses(options.check.source, "wikipedia"):
        endpoints.append(("wikipedia", options.wikipedia.article_url))
    if uses(options.check.source, "web") and options.search.backend:
        endpoints.append((f"search ({options.search.backend})", options.search.url or "(the engine's default)"))
    if options.archive.enabled:
        endpoints += [("wayback-availability", options.archive.availability_url),
                      ("wayback-cdx", options.archive.cdx_url), ("wayback", options.archive.web_url)]
    if options.judge.backend == "openai":
        endpoints += [("judge", url) for url in judge_urls(options.judge.url)]
    return traces.RunInfo(
        mode="run" if result.kept else "check", started=result.started, finished=result.finished,
        duration_s=result.seconds, complete=result.complete, judge_backend=options.judge.backend,
        model=judge.model_id, template=judge.template.id, prompt_template=judge.template.text,
        threshold=judge.threshold, strategy=options.check.strategy, top=options.check.top,
        embeddings=options.check.embedding_model if parts.tools.embed else "none", endpoints=endpoints,
        options=sorted(options.public().items()), notes=result.notes, skipped=result.skipped,
        run_id=str(result.run_id) if result.kept else "", services=parts.records.services)


def default_stem(result: RunResult, reports: Path) -> Path:
    """``reports/run-<id>`` for a kept run, ``reports/check-<item>-<time>`` for a dry run."""
    if result.kept:
        return reports / f"run-{result.run_id}"
    started = result.started.replace("-", "").replace(":", "")
    return reports / f"check-{'-'.join(result.worklist.items[:1]) or 'run'}-{started}"


def write_run(tree: Any, stem: Path) -> tuple[Path, Path]:
    """The trace (validated against the schema) and its HTML report, at ``stem`` with .xml and .html."""
    return traces.write(tree, stem.with_suffix(".xml")), write_report(tree, stem.with_suffix(".html"))
