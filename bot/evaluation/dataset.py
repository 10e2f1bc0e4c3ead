"""Labelled statements from JSON Lines: ``id``, ``subject``, ``predicate``, ``object``, ``text``, ``label``.

Optional fields refine the report: ``concept1``/``concept2`` (grouping by concept pair), ``property_id``,
``predicate_description`` (what the predicate means, as a Wikidata property description says), the published
method's ``paper_verdict``/``paper_answer``, the value's ``datatype``, and the row's ``kind``: how a row was made
("original", or from one: "wrong-value:date", "other-subject", "relation-swap"…), by which verdicts are broken down,
and the text's ``language`` (a BCP 47 code such as "de"), by which the scores are broken down; ``fact_id`` or
``claim_id`` and ``subject_qid`` or ``subject_id`` keep rows of one fact or subject in one fold when
cross-validating. A row may also give the labels in the text's own language, ``subject_local``/``object_local``
(as labels asked in the page's language give them); ``read_dataset(..., labels="local")`` states the claims with
those.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.datamodel import PID_PATTERN, Claim, Relation, Value
from bot.errors import InputError

if TYPE_CHECKING:
    from bot.properties import PropertyProfiles

REQUIRED = ("id", "subject", "predicate", "object", "text", "label")
# Which labels a claim is stated with: the row's subject/object, or its subject_local/object_local where it has them.
LABELS = ("given", "local")


@dataclass(frozen=True)
class LabelledStatement:
    id: str
    claim: Claim
    text: str
    label: bool
    concept_pair: str | None = None
    relation: str = ""
    paper_verdict: bool | None = None
    paper_answer: str | None = None
    # The value's Wikidata datatype when the row gives one (time, quantity, …): values are then found as texts
    # write them, and results are broken down by it.
    datatype: str | None = None
    # How the row was made ("original", "wrong-value:date", "other-subject", …) when the row says.
    kind: str | None = None
    # The text's language when the row says ("de", "ru").
    language: str | None = None
    # What ties rows about one fact together, whatever the language or the labels: the row's ``fact_id`` (one fact
    # told in several languages), else its statement's ``claim_id``, else None. Cross-validation keeps such rows on
    # one side (``bot.evaluation.folds``).
    fact: str | None = None
    # The subject's Wikidata id when the row gives one (``subject_qid``/``subject_id``).
    subject_id: str | None = None
    # The value's Wikidata id when the row gives one (``object_qid``): the value is an item, where no datatype says.
    object_id: str | None = None


@dataclass(frozen=True)
class PredicateInfo:
    description: str = ""
    contrasts: tuple[str, ...] = ()
    phrase: str = ""


def read_dataset(path: Path, descriptions: Mapping[str, PredicateInfo] | None = None,
                 profiles: PropertyProfiles | None = None, labels: str = "given") -> list[LabelledStatement]:
    """Rows with their claims. A predicate described in ``descriptions`` is shown as described there; any
    other is looked up in ``profiles`` by the row's ``property_id`` (by its label when it has none), as
    ``refbot check`` would, so that it is judged against its contrasting properties. A predicate that is no
    Wikidata property refbot knows (a biomedical data set's "Positive_Correlation") gets a phrase made from its
    label and no contrasts: the data set's other predicates, tried as contrasts with phrases made from their
    labels, cost BioRED-Verify most of its recall (benchmarks/README.md). ``labels`` "local" states each claim with
    the row's ``subject_local``/``object_local`` where it gives them (its subject/object otherwise)."""
    if labels not in LABELS:
        raise ValueError(f"labels must be one of {LABELS}, not {labels!r}")
    descriptions = descriptions or {}
    rows: list[LabelledStatement] = []
    seen: dict[str, int] = {}
    try:
        lines = path.read_text(encoding="utf-8").split("\n")  # not splitlines(): U+2028 may occur in JSON
    except OSError as error:
        raise InputError(f"cannot read the data set: {error.strerror}", path=str(path)) from error
    except UnicodeDecodeError:
        raise InputError("the data set is not UTF-8 text", path=str(path)) from None
    parsed: list[dict] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        row = _parse_line(line, path, number)
        row["id"] = str(row["id"])
        if row["id"] in seen:
            raise InputError(f"id {row['id']!r} already appeared on line {seen[row['id']]}", path=str(path),
                             line=number, hint="every row needs a unique id")
        seen[row["id"]] = number
        property_id = str(row.get("property_id") or "")
        if property_id and not PID_PATTERN.match(property_id):
            raise InputError(f"property_id must be a Wikidata property id, not {property_id!r}", path=str(path),
                             line=number)
        parsed.append(row)
    for row in parsed:
        if labels == "local":
            row = row | {name: row[f"{name}_local"] for name in ("subject", "object") if row.get(f"{name}_local")}
        predicate = str(row["predicate"])
        property_id = str(row.get("property_id") or "")
        if predicate in descriptions or profiles is None:
            info = descriptions.get(predicate, PredicateInfo())
            description = row.get("predicate_description") or info.description
            alternatives = tuple(Relation(other, descriptions.get(other, PredicateInfo()).description,
                                          descriptions.get(other, PredicateInfo()).phrase)
                                 for other in info.contrasts)
            # A descriptions file's predicate is asked as a triple with its definition, which reads a biomedical
            # abstract's implicit statements better than a sentence does (benchmarks/README.md).
            claim = Claim(str(row["subject"]), predicate, str(row["object"]), str(description), alternatives,
                          info.phrase)
        else:
            profile = profiles.profile(property_id, predicate) if property_id else profiles.for_label(predicate)
            claim = replace(profile.claim(str(row["subject"]), str(row["object"])), predicate=predicate,
                            predicate_description=str(row.get("predicate_description") or profile.description))
        concept_pair = f"{row['concept1']}-{row['concept2']}" if row.get("concept1") and row.get("concept2") \
            else None
        datatype = str(row["datatype"]) if row.get("datatype") else None
        if datatype:  # rendered as `refbot select` shows it: "1943-01-14", "1943", "271 metre"
            claim = replace(claim, value=Value(datatype, str(row["object"]), str(row["object"])))
        rows.append(LabelledStatement(
            id=str(row["id"]),
            claim=claim,
            text=str(row["text"]),
            label=row["label"],
            concept_pair=concept_pair,
            relation=str(row.get("property_id") or predicate),
            paper_verdict=row.get("paper_verdict") if isinstance(row.get("paper_verdict"), bool) else None,
            paper_answer=row.get("paper_answer"),
            datatype=datatype,
            kind=str(row["kind"]) if row.get("kind") else None,
            language=str(row["language"]) if row.get("language") else None,
            fact=str(row.get("fact_id") or row.get("claim_id") or "") or None,
            subject_id=str(row.get("subject_qid") or row.get("subject_id") or "") or None,
            object_id=str(row.get("object_qid") or "") or None,
        ))
    if not rows:
        raise InputError("the data set holds no statements", path=str(path))
    return rows


def _parse_line(line: str, path: Path, number: int) -> dict:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON ({error.msg} at column {error.colno})", path=str(path), line=number,
                         hint="each line must be one JSON object") from None
    if not isinstance(row, dict):
        raise InputError("a line must hold a JSON object", path=str(path), line=number)
    missing = [field for field in REQUIRED if field not in row]
    if missing:
        raise InputError(f"missing field(s) {', '.join(missing)}", path=str(path), line=number,
                         hint=f"every row needs {', '.join(REQUIRED)}")
    if not isinstance(row["id"], (str, int)) or isinstance(row["id"], bool):
        raise InputError(f"id must be a string or a number, not {row['id']!r}", path=str(path), line=number)
    if not isinstance(row["label"], bool):
        raise InputError(f"label must be true or false, not {row['label']!r}", path=str(path), line=number)
    for field in ("subject", "predicate", "object", "text"):
        if not isinstance(row[field], str) or not row[field].strip():
            raise InputError(f"{field} must be a non-empty string", path=str(path), line=number)
    if "datatype" in row and row["datatype"] is not None and not isinstance(row["datatype"], str):
        raise InputError(f"datatype must be a Wikidata datatype name such as \"time\", not {row['datatype']!r}",
                         path=str(path), line=number)
    for field in ("subject_local", "object_local", "language"):
        if row.get(field) is not None and (not isinstance(row[field], str) or not row[field].strip()):
            raise InputError(f"{field} must be a non-empty string when given", path=str(path), line=number)
    if "kind" in row and row["kind"] is not None and not isinstance(row["kind"], str):
        raise InputError(f"kind must be a string such as \"wrong-value:date\", not {row['kind']!r}", path=str(path),
                         line=number)
    return row


def read_descriptions(path: Path) -> dict[str, PredicateInfo]:
    """Predicate → what it means, like a Wikidata property description, and which relations contrast with it.

    The file is a JSON object; each value is a description string, or an object with ``description``,
    ``contrasts`` (a list of other predicates that could hold between the same entities instead) and
    ``phrase`` (how a sentence states the predicate between subject and object, e.g. "increases").
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"cannot read predicate descriptions: {error.strerror}", path=str(path)) from error
    except json.JSONDecodeError as error:
        raise InputError(f"not valid JSON ({error.msg} on line {error.lineno})", path=str(path)) from None
    if not isinstance(data, dict):
        raise InputError("expected a JSON object of predicate → description", path=str(path))
    infos: dict[str, PredicateInfo] = {}
    for predicate, value in data.items():
        if isinstance(value, str):
            infos[predicate] = PredicateInfo(value)
        elif isinstance(value, dict) and isinstance(value.get("description", ""), str) \
                and isinstance(value.get("phrase", ""), str) and isinstance(value.get("contrasts", []), list) \
                and all(isinstance(c, str) for c in value.get("contrasts", [])):
            infos[predicate] = PredicateInfo(value.get("description", ""), tuple(value.get("contrasts", [])),
                                             value.get("phrase", ""))
        else:
            raise InputError(f"{predicate!r}: expected a description string or an object with description "
                             "and contrasts", path=str(path))
    unknown = {c for info in infos.values() for c in info.contrasts} - set(infos)
    if unknown:
        raise InputError(f"contrasting predicates without a description: {', '.join(sorted(unknown))}",
                         path=str(path))
    return infos


def stratified_sample(rows: Sequence[LabelledStatement], size: int, seed: int = 42) -> list[LabelledStatement]:
    """A fixed sample keeping the share of each (label, relation, concept pair, kind) stratum, in data-set order.

    Each stratum is shuffled once by the seed and read from its start, so a smaller sample is (up to rounding)
    part of a larger one: judgements made for one sample size are reused by the other."""
    if size >= len(rows):
        return list(rows)
    strata: dict[tuple, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        strata[(row.label, row.relation, row.concept_pair, row.kind)].append(index)
    generator = random.Random(seed)
    quotas = {key: size * len(members) / len(rows) for key, members in strata.items()}
    counts = {key: int(quota) for key, quota in quotas.items()}
    by_remainder = sorted(strata, key=lambda key: (quotas[key] - counts[key], len(strata[key])), reverse=True)
    for key in by_remainder[: size - sum(counts.values())]:
        counts[key] += 1
    chosen: list[int] = []
    for key, members in strata.items():
        shuffled = list(members)
        generator.shuffle(shuffled)
        chosen.extend(shuffled[: counts[key]])
    return [rows[index] for index in sorted(chosen)]
