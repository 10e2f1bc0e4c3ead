"""The support score calibrated on labelled data, and where it accepts, abstains and rejects. Pure.

The judge's raw support (P(yes), the relation's share) ranks paragraphs well but is no probability: a small model
says yes at 0.8 to text that states the claim and to text that merely names both entities. A calibration maps the
raw support, per kind of value where the data allows, to the fraction of statements with that support that were
supported in labelled development data (isotonic regression, fitted by ``benchmarks/calibrate.py`` with
scikit-learn and stored as the points of its step function in ``calibration.json``). On the calibrated score:

- at or above ``accept`` (chosen on the development data for precision ≥ 0.95) the paragraph supports;
- from ``undecided`` up to ``accept`` the judge abstains (verdict ``b``): the statement is neither proposed nor
  called unsupported, and the report says so;
- below ``undecided`` it does not support.

A calibration is fitted for one model and template: the judge of any other model uses the raw support
(``Calibration.identity``: accept at 0.5, no undecided band) until one is fitted for it.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

ASSET = "calibration.json"
# The kinds of value calibrated apart (a Wikidata datatype maps to one); anything else uses "all".
KINDS = {"time": "time", "quantity": "quantity", "string": "text", "external-id": "text",
         "monolingualtext": "text", "url": "text", "wikibase-item": "item", "wikibase-property": "item",
         "wikibase-lexeme": "item"}
POOLED = "all"


@dataclass(frozen=True)
class Curve:
    """A non-decreasing step function given by its points (isotonic regression's thresholds), interpolated
    linearly between them and clipped at the ends, as scikit-learn's ``IsotonicRegression.predict`` does."""

    x: tuple[float, ...]
    y: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.x) != len(self.y) or not self.x:
            raise ValueError("a calibration curve needs as many x as y points, at least one")
        if any(b < a for a, b in zip(self.x, self.x[1:])) or any(b < a for a, b in zip(self.y, self.y[1:])):
            raise ValueError("a calibration curve must be non-decreasing")

    def __call__(self, score: float) -> float:
        if score <= self.x[0]:
            return self.y[0]
        if score >= self.x[-1]:
            return self.y[-1]
        right = bisect.bisect_right(self.x, score)
        x0, x1, y0, y1 = self.x[right - 1], self.x[right], self.y[right - 1], self.y[right]
        return y0 if x1 == x0 else y0 + (y1 - y0) * (score - x0) / (x1 - x0)


@dataclass(frozen=True)
class Calibration:
    """Curves by kind of value (``KINDS``), the accepting threshold and the undecided band's floor."""

    model: str = ""
    template: str = ""
    curves: Mapping[str, Curve] = field(default_factory=dict)
    accept: float = 0.5
    undecided: float = 0.5
    # Where it was fitted and what it measured there (shown by `refbot eval` and in the trace's run info).
    fitted_on: str = ""

    @classmethod
    def identity(cls) -> "Calibration":
        return cls()

    @property
    def is_identity(self) -> bool:
        return not self.curves

    def applies_to(self, model: str, template: str) -> bool:
        """Fitted for this model (the name before "/", its runtime aside) and template."""
        return not self.is_identity and model.split("/")[0] == self.model.split("/")[0] and template == self.template

    def score(self, support: float, datatype: str | None) -> float:
        curve = self.curves.get(KINDS.get(datatype or "", POOLED)) or self.curves.get(POOLED)
        return support if curve is None else round(min(1.0, max(0.0, curve(support))), 6)

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "template": self.template, "accept": self.accept, "undecided": self.undecided,
                "fitted_on": self.fitted_on,
                "curves": {kind: {"x": list(curve.x), "y": list(curve.y)} for kind, curve in self.curves.items()}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Calibration":
        curves = {kind: Curve(tuple(map(float, points["x"])), tuple(map(float, points["y"])))
                  for kind, points in data.get("curves", {}).items()}
        accept, undecided = float(data["accept"]), float(data["undecided"])
        if not 0.0 <= undecided <= accept <= 1.0:
            raise ValueError(f"calibration thresholds out of order: undecided {undecided}, accept {accept}")
        return cls(str(data.get("model", "")), str(data.get("template", "")), curves, accept, undecided,
                   str(data.get("fitted_on", "")))


def decide(calibration: Calibration, support: float, datatype: str | None, threshold: float | None = None
           ) -> tuple[str, float]:
    """(option, calibrated support): "a" at or above the threshold (the calibration's unless an operator set
    one), "b" (undecided) from the undecided floor up to it, "c" below."""
    calibrated = calibration.score(support, datatype)
    accept = calibration.accept if threshold is None else threshold
    if calibrated >= accept:
        return "a", calibrated
    return ("b" if calibrated >= min(calibration.undecided, accept) else "c"), calibrated


def rescored(records: Mapping[str, Mapping[str, Any]], datatypes: Mapping[str, str | None],
             calibration: Calibration, threshold: float | None = None) -> dict[str, dict[str, Any]]:
    """Judgement records (``refbot eval``'s ledger) decided again on their raw support with ``calibration``: a
    calibration fitted after a run is measured on it without asking the model again. Only the model's own
    yes/no judgements change: those with a calibrated score, and a contradiction, which stands only where the
    claim with the page's other value still supports (else the text merely does not write the value); a text
    that does not write the value and an unreadable answer stay as they were."""
    out = {}
    for key, record in records.items():
        record = dict(record)
        if record.get("calibrated") is not None and record.get("verdict") in ("a", "b", "c"):
            record["verdict"], record["calibrated"] = decide(calibration, float(record["support"]),
                                                             datatypes.get(key), threshold)
        elif record.get("verdict") == "contradicts" and record.get("contradiction"):
            # The claim with the page's other value was asked as a claim without a value (pooled calibration).
            option, _ = decide(calibration, float(record["contradiction"]["support"]), None, threshold)
            if option != "a":
                record["verdict"], record["contradiction"] = "c", None
        out[key] = record
    return out


def shipped() -> Calibration:
    """The calibration fitted for refbot's default judge, shipped with the package."""
    return Calibration.from_json(json.loads(resources.files("bot.judge").joinpath(ASSET).read_text("utf-8")))


def for_judge(model: str, template: str) -> Calibration:
    """The shipped calibration where it was fitted for this model and template, else the identity."""
    calibration = shipped()
    return calibration if calibration.applies_to(model, template) else Calibration.identity()


# -- fitting (benchmarks/calibrate.py; scikit-learn) ------------------------------------------------------------
MIN_ROWS, MIN_EACH = 40, 8


def fit(labels: Sequence[bool], scores: Sequence[float], kinds: Sequence[str], *, model: str, template: str,
        precision: float = 0.95, fitted_on: str = "") -> Calibration:
    """Isotonic curves, pooled and per kind of value with enough rows of both labels (``MIN_ROWS`` rows, at least
    ``MIN_EACH`` of each label), then the lowest calibrated threshold at which the rows' precision is at least
    ``precision`` (recall as high as the precision allows), and the undecided band from 0.5 up to it."""
    from sklearn.isotonic import IsotonicRegression

    def curve(indices: Sequence[int]) -> Curve:
        regression = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
        regression.fit([scores[i] for i in indices], [float(labels[i]) for i in indices])
        return Curve(tuple(float(x) for x in regression.X_thresholds_),
                     tuple(float(y) for y in regression.y_thresholds_))

    curves = {POOLED: curve(range(len(labels)))}
    for kind in sorted(set(kinds)):
        indices = [i for i, k in enumerate(kinds) if k == kind]
        positives = sum(labels[i] for i in indices)
        if len(indices) >= MIN_ROWS and min(positives, len(indices) - positives) >= MIN_EACH:
            curves[kind] = curve(indices)
    calibration = Calibration(model, template, curves, fitted_on=fitted_on)
    calibrated = [calibration.score(score, _datatype_of(kind)) for score, kind in zip(scores, kinds)]
    accept = accepting_threshold(labels, calibrated, precision)
    return Calibration(model, template, curves, accept, min(0.5, accept), fitted_on)


def accepting_threshold(labels: Sequence[bool], calibrated: Sequence[float], precision: float) -> float:
    """The lowest threshold t among the scores at which the rows scoring ≥ t have at least ``precision``
    (1.0 when none does)."""
    for threshold in sorted(set(calibrated)):
        chosen = [label for label, score in zip(labels, calibrated) if score >= threshold]
        if chosen and sum(chosen) / len(chosen) >= precision:
            return threshold
    return 1.0


def kind_of(datatype: str | None) -> str:
    return KINDS.get(datatype or "", POOLED)


def _datatype_of(kind: str) -> str | None:
    return next((datatype for datatype, k in KINDS.items() if k == kind), None)
