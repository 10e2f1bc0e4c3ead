"""A labelled dataset measured with the judge the options describe: the rows read (a sample or the first N), the
claims stated with their properties' profiles, each judgement saved as it is made (``runner.evaluate``), and the
settings that make a saved judgement reusable written beside it."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from importlib import resources
from pathlib import Path
from typing import Any

from bot.evaluation.dataset import read_dataset, read_descriptions, stratified_sample
from bot.evaluation.runner import Evaluation, evaluate
from bot.judge.calibration import for_judge, rescored
from bot.judge.engine import CONTRADICTION_CANDIDATES
from bot.judge.engine import Judge
from bot.judge.prompts import template_by_id
from bot.modelstore import sha256_of
from bot.options import Options
from bot.properties import PropertyProfiles
from bot.redaction import public_options, redact_url, write_private
from bot.selection import endpoint_url
from bot.values import matching_digest

# Where each claim's relation and contrasts come from: the curated catalogue and the disk cache, those and the
# SPARQL endpoint, or nothing (each claim judged alone).
PROFILES = ("catalogue", "look-up", "none")


def default_out(dataset: Path, template: str, labels: str = "given") -> Path:
    local = "-local" if labels == "local" else ""
    return Path("reports") / f"eval-{dataset.parent.name}-{dataset.stem}{local}-{template}.jsonl"


def measure(options: Options, dataset: Path, out: Path, *, judge: Callable[[], Judge],
            profiles: PropertyProfiles | None, profiles_from: str = "catalogue", descriptions: Path | None = None,
            sample: int | None = None, limit: int | None = None, labels: str = "given",
            on_judged: Callable[[int, int], None] | None = None) -> Evaluation:
    """Judge the dataset's rows not already in ``out`` and score all of them. ``judge`` gives the judge when a row
    is left to judge (its model loads only then); ``profiles`` states each claim's relation and contrasts (None:
    each claim alone), ``profiles_from`` says where they come from (one of PROFILES), for the saved settings.
    ``labels``: which of the rows' labels state the claims (``bot.evaluation.dataset.LABELS``).
    Raises JudgeError when the judge fails part-way (what was judged is saved in ``out``; the same call resumes)."""
    if profiles_from not in PROFILES:
        raise ValueError(f"profiles_from must be one of {PROFILES}, not {profiles_from!r}")
    described = read_descriptions(descriptions) if descriptions else None
    rows = read_dataset(dataset, described, profiles, labels)
    if sample:
        rows = stratified_sample(rows, sample)
    if limit:
        rows = rows[:limit]
    evaluation = evaluate(rows, judge, out, template=template_by_id(options.judge.template).id,
                          settings=settings(options, descriptions, profiles_from) | (
                              {"labels": labels} if labels != "given" else {}),
                          on_judged=on_judged)
    return decided_now(evaluation, rows, options)


def decided_now(evaluation: Evaluation, rows: list, options: Options) -> Evaluation:
    """The evaluation with each of the model's judgements decided on its raw support with the calibration that
    applies to the judge now (``bot.judge.calibration.rescored``): a calibration fitted after a run is measured
    on its judgements without asking the model again."""

    calibration = for_judge(evaluation.model, evaluation.template)
    datatypes = {row.id: row.datatype or (row.claim.value.datatype if row.claim.value else None) for row in rows}
    return replace(evaluation, records=rescored(evaluation.records, datatypes, calibration, options.judge.threshold))


def settings(options: Options, descriptions: Path | None, profiles: str) -> dict[str, Any]:
    """What a saved judgement was made with; judgements made otherwise are not resumed."""

    template = template_by_id(options.judge.template)
    return {"threshold": options.judge.threshold, "justify": options.judge.justify and bool(template.justification),
            "descriptions": sha256_of(descriptions)[:16] if descriptions else None,
            # What each claim was judged against: changing the catalogue or the profiles changes verdicts.
            "relations": _relations(options, profiles),
            "prompt": hashlib.sha256(template.text.encode()).hexdigest()[:16],
            # How a row's value is found in its text; a text that does not write it is never support, and up to
            # CONTRADICTION_CANDIDATES other values it writes are asked about.
            # Not the calibration: the judgements are decided again with the one that applies when they are scored
            # (decided_now).
            "values": f"{matching_digest()} written only, {CONTRADICTION_CANDIDATES} other values asked"}


def _relations(options: Options, profiles: str) -> str:
    if profiles == "none":
        return "none"

    text = resources.files("bot.properties").joinpath("catalogue.json").read_bytes()
    catalogue = f"catalogue {hashlib.sha256(text).hexdigest()[:16]}"
    if profiles == "look-up":

        return f"{catalogue}, cache and {redact_url(endpoint_url(options.sparql.endpoint), service=True)}"
    return catalogue


def write_summary(evaluation: Evaluation, dataset: Path, options: Options, path: Path) -> Path:
    """The scores and the options (no secret, each service's URL redacted), readable by its owner only (0600)."""

    summary = evaluation.summary() | {"dataset": str(dataset), "options": public_options(options)}
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_private(path, json.dumps(summary, indent=2) + "\n")
