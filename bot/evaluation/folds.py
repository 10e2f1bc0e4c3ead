"""Folds for cross-validating a verdict learned from labelled rows, so that no figure is read on what it learned.

Rows that share a fact, a subject or a text are one group, and a group lies in one fold: a fact told in six
languages, the true and the relation-swapped row of one sentence, two statements about one person. Groups are the
connected components of "shares a key" (union-find over the keys each row gives: ``keys_of``), so a row tied to
two groups joins them. Folds are filled largest group first, each into the fold with fewest rows so far (ties by
fewest positives, then by index), which keeps the folds' sizes and base rates close and needs no random draw.

A second split holds out whole properties (``by_property``): the held-out sets use properties the training rows do
not have, so how a learned verdict carries to a property it never saw is measured apart. Pure.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence

from bot.evaluation.dataset import LabelledStatement


def keys_of(row: LabelledStatement) -> list[tuple[str, str]]:
    """What ties ``row`` to others: its fact, its subject (by id, and by name), its text."""
    keys = [("subject", _normal(row.claim.subject)), ("text", _normal(row.text))]
    if row.fact:
        keys.append(("fact", row.fact))
    if row.subject_id:
        keys.append(("subject id", row.subject_id))
    return keys


def groups(keys: Sequence[Iterable[Hashable]]) -> list[int]:
    """For each row, the number of its group: rows are joined when any of their keys is shared. Groups are
    numbered in the order of their first row."""
    parent = list(range(len(keys)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    first: dict[Hashable, int] = {}
    for index, row_keys in enumerate(keys):
        for key in row_keys:
            if key in first:
                a, b = root(first[key]), root(index)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                first[key] = index
    numbers: dict[int, int] = {}
    return [numbers.setdefault(root(index), len(numbers)) for index in range(len(keys))]


def assign(group_of: Sequence[int], labels: Sequence[bool], folds: int) -> list[int]:
    """For each row, its fold (0 … ``folds`` - 1), each group whole in one fold."""
    if folds < 2:
        raise ValueError(f"cross-validation needs at least 2 folds, not {folds}")
    members: dict[int, list[int]] = defaultdict(list)
    for index, group in enumerate(group_of):
        members[group].append(index)
    if len(members) < folds:
        raise ValueError(f"{len(members)} group(s) of rows cannot fill {folds} folds")
    sizes, positives = [0] * folds, [0] * folds
    fold_of_group: dict[int, int] = {}
    for group in sorted(members, key=lambda g: (-len(members[g]), g)):
        fold = min(range(folds), key=lambda f: (sizes[f], positives[f], f))
        fold_of_group[group] = fold
        sizes[fold] += len(members[group])
        positives[fold] += sum(labels[index] for index in members[group])
    return [fold_of_group[group] for group in group_of]


def grouped_folds(rows: Sequence[LabelledStatement], folds: int = 5) -> list[int]:
    """Each row's fold, no fact, subject or text on both sides of any split."""
    return assign(groups([keys_of(row) for row in rows]), [row.label for row in rows], folds)


def by_property(rows: Sequence[LabelledStatement]) -> list[int]:
    """Each row's fold when every property is held out in turn: the fold is the property's number (in order of
    first appearance). Rows of one group with different properties stay with the first row's property, so a fact
    or subject is still never on both sides."""
    properties: dict[str, int] = {}
    group_of = groups([keys_of(row) for row in rows])
    property_of_group: dict[int, int] = {}
    for row, group in zip(rows, group_of):
        property_of_group.setdefault(group, properties.setdefault(row.relation, len(properties)))
    return [property_of_group[group] for group in group_of]


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip().casefold()
