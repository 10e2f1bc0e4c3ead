"""A run's trace and report, from what the run left: its :class:`~bot.check_run.RunResult` and its ledger.

:class:`TraceRecords` is how a run keeps each item and statement in its ledger (trace elements, their URLs
redacted); :func:`run_trace` assembles the trace of everything the run finished from those records, under the run's
settings; :func:`write_run` validates it and writes it with its HTML report.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from bot.output.file_names import run_stem
from bot.checking.items import ItemContext
from bot.checking.records import StatementCheck
from bot.checking.statement import Tools
from bot.errors import ConfigError, InputError
from bot.judge.calibration import for_judge
from bot.judge.engine import Judge
from bot.judge.prompts import Template, template_by_id
from bot.options import Options, judge_urls, uses
from bot.output import trace as traces
from bot.output.report import LeftOut, naming, write_report
from bot.ledger.ledger import Run, RunLedger
from bot.check_run import RunResult
from bot.selection import endpoint_url
from bot.selection.worklists import Worklist
from bot.verifying.records import ReferenceCheck
from bot.verify_run import VerifyResult


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

    def verification(self, context: ItemContext, check: ReferenceCheck) -> str:
        return traces.to_string(traces.checked_verification_element(context, check, self.services))


def run_trace(result: RunResult, ledger: RunLedger, parts: RunParts | traces.RunInfo) -> Any:
    """The run's trace (an lxml tree, valid against xslt/trace.xsd): every statement the run has finished, under
    its item as first read in the run, each item's statements in worklist order; the settings from ``parts`` (or
    the account of the run itself, :func:`ledger_trace`)."""
    order = {statement.guid: index for index, statement in enumerate(result.selected)}
    record = ledger.run(result.run_id)
    assert record is not None, f"run {result.run_id} is not in the ledger it ran in"

    def in_order(pair: tuple[str, str]) -> int:
        return order.get(pair[0], len(order))

    items = [(traces.from_string(element), [traces.from_string(text) for _, text in sorted(statements, key=in_order)])
             for _, element, statements in ledger.items(record, with_empty=not result.kept)]
    info = parts if isinstance(parts, traces.RunInfo) else run_info(result, parts)
    return traces.assemble(info, items)


def verify_trace(result: VerifyResult, ledger: RunLedger, parts: RunParts) -> Any:
    """A verify run's trace: every reference it has verified, under its item as first read in the run, in the
    order they were recorded."""
    record = ledger.run(result.run_id)
    assert record is not None, f"run {result.run_id} is not in the ledger it ran in"
    items = [(traces.from_string(element), sorted((traces.from_string(text) for _, text in references),
                                                  key=lambda found: found.tag != traces.tag("statement")))
             for _, element, references in ledger.items(record, with_empty=not result.kept)]
    info = replace(run_info(result, parts), mode="verify")  # type: ignore[arg-type]
    tree = traces.assemble(info, items)
    if result.kept:  # `refbot report --run` and `export --run` describe it as it was verified
        ledger.record_run_element(record, traces.to_string(tree.getroot().find(traces.tag("run"))))
    return tree


def run_info(result: RunResult, parts: RunParts) -> traces.RunInfo:
    """The trace's account of the run: when, how long, with which judge, settings and services."""
    judge = parts.judge
    arithmetic = getattr(getattr(judge, "backend", None), "arithmetic", None)
    return described(result, parts.options, model=judge.model_id, template=judge.template,
                     threshold=judge.threshold, services=parts.records.services,
                     arithmetic=arithmetic.describe() if arithmetic is not None else "")


def described(result: RunResult, options: Options, *, model: str, template: Template, threshold: float,
              services: Sequence[str] = (), arithmetic: str = "") -> traces.RunInfo:
    """The run as ``options`` and a judge's ``model``, ``template`` and ``threshold`` make it (no part is built:
    the embedding model is named from the options, never loaded)."""
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
    ranked_by_embeddings = options.check.embeddings and options.check.strategy == "ranked"  # (bot.wiring's Tools)
    return traces.RunInfo(
        mode="run" if result.kept else "check", started=result.started, finished=result.finished,
        duration_s=result.seconds, complete=result.complete, judge_backend=options.judge.backend,
        model=model, template=template.id, prompt_template=template.text,
        threshold=threshold, strategy=options.check.strategy, top=options.check.top,
        embeddings=options.check.embedding_model if ranked_by_embeddings else "none", endpoints=endpoints,
        options=sorted(options.public().items()), notes=result.notes, skipped=result.skipped,
        run_id=str(result.run_id) if result.kept else "", services=services, arithmetic=arithmetic)


def keep_run_settings(ledger: RunLedger, record: Run, parts: RunParts, *, mode: str = "run") -> None:
    """The run element of a run that workers share, kept in its ledger by the first worker that finished one of its
    items (it built the judge): `refbot report --run` then describes the run as it was checked, loading nothing. It
    replaces one a report made from its own configuration before (:data:`UNRECORDED`)."""
    kept = ledger.run_element(record.id)
    if kept is not None and UNRECORDED not in kept:
        return
    result = RunResult(record.id, Worklist(f"run {record.id}"), True, record.started, "", 0.0, (), (), {}, 0, 0)
    info = replace(run_info(result, parts), mode=mode)
    ledger.record_run_element(record, traces.to_string(traces.run_element(info, [])))


# The note of a run's trace whose judge and settings are the configuration's that rendered it, not the run's own.
UNRECORDED = "no process recorded how this run was checked yet: its judge and settings are this configuration's"


def ledger_trace(ledger: RunLedger, run_id: int, options: Options, *, now: str) -> Any:
    """The trace of any run of the ledger — checked in one process or by workers — from the ledger alone, loading no
    model: the judge and settings as the run recorded them (its run element), its time, state and statements as the
    ledger has them now (``now``: the finish shown for a run not finished). A run with no run element yet (its
    workers finished none of its items, or an older refbot's) is described by ``options``, and its trace says so."""
    record = ledger.run(run_id)
    if record is None:
        raise InputError(f"the ledger {ledger.path} has no run {run_id}",
                         hint="pass the run id `refbot run` or `refbot run --enqueue` printed")
    finished = ledger.run_finished(record)
    queue = ledger.queue(run_id)
    result = RunResult(record.id, Worklist(f"run {record.id}"), True, record.started, finished or now,
                       ledger.run_seconds(record), (), (), ledger.counts(record), 0,
                       queue.left if queue else int(finished is None))
    element = ledger.run_element(run_id)
    if element is not None:
        recorded = recorded_info(traces.from_string(element))
        info = replace(recorded, mode="verify" if recorded.mode == "verify" else "run", run_id=str(run_id),
                       started=record.started,
                       finished=finished or recorded.finished or now, duration_s=result.seconds,
                       complete=finished is not None)
    else:
        template = template_by_id(options.judge.template)
        threshold = options.judge.threshold if options.judge.threshold is not None else \
            for_judge(options.judge.model, template.id).accept
        info = described(replace(result, notes=(UNRECORDED,)), options, model=options.judge.model, template=template,
                         threshold=threshold)
    return run_trace(result, ledger, info)


def recorded_info(run: Any) -> traces.RunInfo:
    """A run element read back (as :func:`bot.output.trace.run_element` wrote it: its URLs redacted already)."""
    judge = run.find(traces.tag("judge"))
    summary = run.find(traces.tag("summary"))
    return traces.RunInfo(
        mode=run.get("mode"), started=run.get("started"), finished=run.get("finished"),
        duration_s=float(run.get("duration-s") or 0), complete=run.get("complete") == "true",
        judge_backend=judge.get("backend"), model=judge.get("model"), template=judge.get("template"),
        prompt_template=judge.findtext(traces.tag("prompt-template")) or "", threshold=float(judge.get("threshold")),
        strategy=judge.get("strategy"), top=int(judge.get("top")), embeddings=judge.get("embeddings"),
        endpoints=[(e.get("service"), e.get("url")) for e in run.iterfind(traces.tag("endpoint"))],
        options=[(o.get("name"), o.get("value")) for o in run.iterfind(traces.tag("option"))],
        notes=[note.text or "" for note in run.iterfind(traces.tag("note"))],
        skipped=int(summary.get("skipped") or 0) if summary is not None else 0, run_id=run.get("id") or "",
        arithmetic=judge.get("arithmetic") or "")


def default_stem(result: RunResult, reports: Path, ledger: RunLedger) -> Path:
    """``reports/run-<id>`` for a kept run (``bot.output.file_names``), ``reports/check-<item>-<time>`` for a dry
    run."""
    if result.kept:
        return run_stem(reports, ledger, result.run_id)
    started = result.started.replace("-", "").replace(":", "")
    return reports / f"check-{'-'.join(result.worklist.items[:1]) or 'run'}-{started}"


def write_run(tree: Any, stem: Path, *, left_out: LeftOut | None = None) -> tuple[Path, Path]:
    """The trace (validated against the schema) and its HTML report, at ``stem`` with .xml and .html; an OSError
    names the file (a full disk). ``left_out``: as :func:`bot.output.report.render` takes it."""
    with naming(stem.with_suffix(".xml")):
        xml = traces.write(tree, stem.with_suffix(".xml"))
    return xml, write_report(tree, stem.with_suffix(".html"), left_out=left_out)


def writable_folder(folder: Path, option: str) -> Path:
    """ConfigError naming the folder and the ``option`` that sets it when no trace or report can be written in it:
    found before a run checks anything (a read-only folder, one under a file), not after it checked everything."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".refbot-probe-"):
            pass
    except OSError as error:
        raise ConfigError(f"cannot write traces and reports in {folder}: {error.strerror or error}",
                          hint=f"make it writable, or set {option} to a folder that is") from None
    return folder
