"""A verdict learned from labelled judgements: a logistic regression over a judgement's features. Pure at use.

The weights, the features' means and scales, and the thresholds are stored as plain numbers (``to_json``), so the
judge applies them without scikit-learn; ``fit`` (scikit-learn) is for training and cross-validation. Like the
calibration, a learned verdict is fitted for one model and prompt template and applies to no other.

On the probability it gives: at or above ``accept`` (chosen on the training rows for the precision asked) the
paragraph supports; from ``undecided`` up to ``accept`` the judge abstains; below, it does not support.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.judge.calibration import accepting_threshold
from bot.judge.features import NAMES

SEED = 20261207
REGULARISATION = 1.0  # scikit-learn's C: the inverse of the L2 penalty on the standardised features' weights


@dataclass(frozen=True)
class LearnedVerdict:
    model: str
    template: str
    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    accept: float
    undecided: float
    fitted_on: str = ""

    def __post_init__(self) -> None:
        if not len(self.names) == len(self.mean) == len(self.scale) == len(self.weights):
            raise ValueError("a learned verdict needs one mean, scale and weight per feature")
        if not 0.0 <= self.undecided <= self.accept <= 1.0:
            raise ValueError(f"learned verdict thresholds out of order: undecided {self.undecided}, "
                             f"accept {self.accept}")

    def probability(self, values: Mapping[str, float]) -> float:
        """How likely the judgement's text supports the claim, by what was learned."""
        z = self.bias + sum(weight * (float(values.get(name, 0.0)) - mean) / scale
                            for name, mean, scale, weight in zip(self.names, self.mean, self.scale, self.weights))
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))

    def decide(self, values: Mapping[str, float]) -> tuple[str, float]:
        """(option, probability): "a" supports, "b" undecided, "c" does not."""
        p = self.probability(values)
        return ("a" if p >= self.accept else "b" if p >= self.undecided else "c"), round(p, 6)

    def applies_to(self, model: str, template: str) -> bool:
        return model.split("/")[0] == self.model.split("/")[0] and template == self.template

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(self.to_json(), sort_keys=True).encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        return {"model": self.model, "template": self.template, "accept": self.accept, "undecided": self.undecided,
                "fitted_on": self.fitted_on, "bias": self.bias,
                "features": [{"name": n, "mean": m, "scale": s, "weight": w}
                             for n, m, s, w in zip(self.names, self.mean, self.scale, self.weights)]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "LearnedVerdict":
        features = list(data["features"])
        return cls(str(data["model"]), str(data["template"]), tuple(str(f["name"]) for f in features),
                   tuple(float(f["mean"]) for f in features), tuple(float(f["scale"]) for f in features),
                   tuple(float(f["weight"]) for f in features), float(data["bias"]), float(data["accept"]),
                   float(data["undecided"]), str(data.get("fitted_on", "")))


def fit(rows: Sequence[Sequence[float]], labels: Sequence[bool], *, model: str, template: str,
        precision: float = 0.95, names: Sequence[str] = NAMES, fitted_on: str = "",
        folds: Sequence[int] | None = None) -> LearnedVerdict:
    """A logistic regression on standardised features (fixed seed), and the lowest threshold at which rows'
    precision reaches ``precision``; the undecided band from half of that up to it. With ``folds`` (each row's
    fold: ``bot.evaluation.folds``) the threshold is chosen on out-of-fold probabilities of the rows, each from a
    regression fitted without its fold: chosen on the rows the regression was fitted on, it promises a precision
    new rows do not get."""
    if len(set(labels)) < 2:
        raise ValueError("a verdict cannot be learned from rows of one label only")
    weights, bias, mean, scale = _regression(rows, labels)
    learned = LearnedVerdict(model, template, tuple(names), mean, scale, weights, bias, 1.0, 1.0, fitted_on)
    probabilities = [learned.probability(dict(zip(names, row))) for row in rows]
    if folds is not None and len(set(folds)) > 1:
        for fold in set(folds):
            inside = [i for i, f in enumerate(folds) if f != fold]
            if len({labels[i] for i in inside}) < 2:
                continue
            w, b, m, sc = _regression([rows[i] for i in inside], [labels[i] for i in inside])
            held = LearnedVerdict(model, template, tuple(names), m, sc, w, b, 1.0, 1.0)
            for i, f in enumerate(folds):
                if f == fold:
                    probabilities[i] = held.probability(dict(zip(names, rows[i])))
    accept = accepting_threshold(labels, probabilities, precision)
    return LearnedVerdict(model, template, tuple(names), mean, scale, weights, bias, accept, accept / 2, fitted_on)


def _regression(rows: Sequence[Sequence[float]], labels: Sequence[bool]
                ) -> tuple[tuple[float, ...], float, tuple[float, ...], tuple[float, ...]]:
    """(weights, bias, means, scales) of a logistic regression on the standardised rows (scikit-learn)."""
    from sklearn.linear_model import LogisticRegression

    columns = list(zip(*rows))
    mean = tuple(sum(column) / len(column) for column in columns)
    scale = tuple(math.sqrt(sum((x - m) ** 2 for x in column) / len(column)) or 1.0
                  for column, m in zip(columns, mean))
    standard = [[(x - m) / s for x, m, s in zip(row, mean, scale)] for row in rows]
    regression = LogisticRegression(C=REGULARISATION, max_iter=2000, random_state=SEED)
    regression.fit(standard, [int(label) for label in labels])
    return tuple(float(w) for w in regression.coef_[0]), float(regression.intercept_[0]), mean, scale
