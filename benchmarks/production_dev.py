"""A development benchmark shaped like production, built from WTR and T-REx-Verify-Hard (issue 31).

    benchmarks/production_dev.py --wtr ../shared/data/wtr-dev/dev.jsonl \\
        --trex ../shared/data/trex-verify-hard-dev/dev.jsonl --out reports/production-dev.jsonl \\
        [--seed 42] [--per-kind N]

In production the bot meets three kinds of page: one that supports the statement; one that states the right value
where the statement holds a wrong one; the page of another statement, about a different subject. The data sets
hold mostly the first (WTR: 137 of 151 rows supported) or a negative production never shows (T-REx's relation
swaps), so a score on them says little about the wrong references the bot would add. This recipe keeps the source
rows ("original"; T-REx's swaps as "relation-swap") and derives from each supported row the negatives production
shows:

- ``wrong-value:date``: the year shifted by ±1..9, shape kept ("1943-01-14" → "1947-01-14", "1943" → "1941");
- ``wrong-value:amount``: the number scaled by 0.5–0.8 or 1.25–2, rounded to its decimals, the unit kept;
- ``wrong-value:item``: the object swapped for another value of the same property from the rows of both sets;
- ``wrong-value:string``: one digit changed (one letter where there is none);
- ``other-subject``: the statement beside the text of another row (of the same property where one fits).

A derived row is false only if its text does not state it, so a new value is kept only where the text does not
state it, looked for both literally and as refbot finds values (``bot.values``: "January 14, 1947", "14. 1.
1947", "117,639", fuzzy labels), and a replacement item is never a value the same subject has in the data; another
row's text must not mention this row's subject. Remaining doubt: a swapped item may still be true (a second
occupation), and a letter changed in a long monolingual text is a hard negative. The source rows' own judgements
(ProVe's score, the annotators' label, a published verdict) are dropped from derived rows: they judge another
statement. Draws are seeded per row, so a row's negatives do not depend on the other rows; caps keep each source's
share and, for a seed, a smaller benchmark is part of a larger one and covers the same statements in every kind.

The data sets are for evaluation only: this recipe is committed, its output goes under reports/ (ignored).
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.datamodel import Value  # noqa: E402
from bot.values import value_finder  # noqa: E402
from bot.values.amounts import Amount, find_amount  # noqa: E402
from bot.values.names import mentions  # noqa: E402

WRONG_VALUE_KINDS = ("wrong-value:date", "wrong-value:amount", "wrong-value:item", "wrong-value:string")
KINDS = ("original", "relation-swap", *WRONG_VALUE_KINDS, "other-subject")
# Fields that judge the source row's statement, not a derived one (dataset.py reports paper_verdict as a baseline).
JUDGEMENTS = ("author_label", "prove_score", "prove_textrich_subset", "paper_verdict", "paper_answer")
STRING_TYPES = ("string", "external-id", "monolingualtext")
_YEAR_IN_DATE = (re.compile(r"^-?(?P<year>\d{1,4})-(?P<month>\d\d)-(?P<day>\d\d)$"),
                 re.compile(r"^(?:(?P<day>\d{1,2}) )?(?P<month>[A-Za-z]+ )?(?P<year>\d{1,4})(?: BCE)?$"))
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_AMOUNT = re.compile(r"^(?P<number>[+-]?\d+(?:\.\d+)?)(?P<rest>(?:\s.*)?)$")


def tag_originals(source: str, rows: Iterable[dict]) -> list[dict]:
    """The source rows as they are, with their data set and kind (a T-REx "-swap" row is a relation swap)."""
    return [{**row, "source": source, "kind": "relation-swap" if str(row["id"]).endswith("-swap") else "original"}
            for row in rows]


def datatype(row: Mapping) -> str:
    return str(row.get("datatype") or "wikibase-item")  # T-REx-Verify-Hard holds items only, untyped


def _rng(seed: int, kind: str, row: Mapping) -> random.Random:
    return random.Random(f"{seed}:{kind}:{row['id']}")


def _states(kind: str, value: str, text: str) -> bool:
    """Whether ``text`` states ``value`` literally or as refbot would find it."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if unicodedata.normalize("NFKC", value).casefold() in folded:
        return True
    return value_finder(Value(kind, value, value))(text) is not None


def shifted_date(value: str, text: str, rng: random.Random) -> str | None:
    """The date with its year moved by ±1..9, in the same shape, that the text does not state; None if none."""
    for pattern in _YEAR_IN_DATE:
        match = pattern.match(value)
        if match:
            break
    else:
        return None
    year, width = int(match.group("year")), len(match.group("year"))
    shifts = [sign * k for k in range(1, 10) for sign in (1, -1)]
    rng.shuffle(shifts)
    for shift in shifts:
        if year + shift < 1:
            continue
        new = value[:match.start("year")] + str(year + shift).zfill(width) + value[match.end("year"):]
        if not _real_day(year + shift, match.group("month"), match.group("day")):
            continue
        if not _states("time", new, text):
            return new
    return None


def _real_day(year: int, month: str | None, day: str | None) -> bool:
    """False for a day no calendar has (29 February 1943)."""
    if not day or not month:
        return True
    name = month.strip().lower()
    if not month.isdigit() and name not in _MONTHS:
        return True
    try:
        datetime.date(year, int(month) if month.isdigit() else _MONTHS.index(name) + 1, int(day))
    except ValueError:
        return False
    return True


def changed_amount(value: str, text: str, rng: random.Random, attempts: int = 50) -> str | None:
    """The amount scaled away from itself (0.5–0.8 or 1.25–2), rounded to its decimals, the unit kept, and stated
    nowhere in the text; None if no draw gives one."""
    match = _AMOUNT.match(value)
    if not match:
        return None
    number, rest = Decimal(match.group("number")), match.group("rest")
    step = Decimal(1).scaleb(number.as_tuple().exponent)
    for _ in range(attempts):
        factor = Decimal(str(round(rng.choice((rng.uniform(0.5, 0.8), rng.uniform(1.25, 2.0))), 3)))
        new = (number * factor).quantize(step, rounding=ROUND_HALF_UP)
        if new == number or (new == 0) != (number == 0):
            continue
        written = format(new, "f")
        grouped = f"{int(abs(new)):,}"
        if written in text or grouped in text or any(find_amount(Amount(new), text)):
            continue
        return written + rest
    return None


def _same_script_digits(char: str) -> list[str]:
    zero = ord(char) - unicodedata.digit(char)
    return [chr(zero + n) for n in range(10)
            if n != unicodedata.digit(char) and unicodedata.digit(chr(zero + n), None) == n]


def _digit_runs(value: str) -> list[tuple[int, int]]:
    """Spans of consecutive digits of any script, subscripts included (which ``\\d`` misses)."""
    runs: list[tuple[int, int]] = []
    for i, char in enumerate(value):
        if unicodedata.digit(char, None) is None:
            continue
        if runs and runs[-1][1] == i:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


def changed_string(value: str, text: str, rng: random.Random) -> str | None:
    """The string with one digit changed (in its own script: "C₄₂" → "C₄₇"), or one letter where it has no digit,
    that the text does not state; None if every change is in the text. A digit among the last two of its number
    changes, so that the value stays plausible ("SI 2009 No. 3352" → "No. 3357", never "SI 4009")."""
    runs = _digit_runs(value)
    changes: list[tuple[int, str]] = []
    if runs:
        for start, end in runs:
            for i in range(max(start, end - 2), end):
                leading = i == start and end - start > 1
                changes += [(i, new) for new in _same_script_digits(value[i]) if not (leading and new in "0₀")]
    else:
        for i, char in enumerate(value):
            if char.isascii() and char.isalpha():
                pool = "abcdefghijklmnopqrstuvwxyz"
                changes += [(i, new if char.islower() else new.upper()) for new in pool if new != char.lower()]
    rng.shuffle(changes)
    for i, new in changes:
        candidate = value[:i] + new + value[i + 1:]
        if not _states("string", candidate, text):
            return candidate
    return None


def item_pool(statement_rows: Iterable[Mapping]) -> dict[str, dict[str, str]]:
    """Property → the values the rows give it (label → QID where known), from rows that state real statements."""
    pool: dict[str, dict[str, str]] = defaultdict(dict)
    for row in statement_rows:
        if row.get("property_id") and datatype(row) == "wikibase-item":
            known = pool[str(row["property_id"])]
            known[str(row["object"])] = known.get(str(row["object"])) or str(row.get("object_qid") or "")
    return pool


def swapped_item(row: Mapping, pool: Mapping[str, Mapping[str, str]], taken: set[str],
                 rng: random.Random) -> str | None:
    """Another value of the row's property that the subject does not have in the data (``taken``, casefolded)
    and that the text does not mention; None if none is left."""
    candidates = [label for label in sorted(pool.get(str(row.get("property_id") or ""), {}))
                  if label.casefold() not in taken and not mentions(label, str(row["text"]))]
    return rng.choice(candidates) if candidates else None


def _derived(row: Mapping, kind: str, suffix: str, **fields) -> dict:
    kept = {key: value for key, value in row.items() if key not in JUDGEMENTS}
    return {**kept, **fields, "id": f"{row['id']}:{suffix}", "label": False, "kind": kind}


def wrong_values(rows: Sequence[Mapping], seed: int) -> list[dict]:
    """Each supported row with its value made wrong, in the ways its datatype allows."""
    statements = [row for row in rows if row["kind"] == "original"]
    pool = item_pool(statements)
    held: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in statements:
        held[(str(row["subject"]).casefold(), str(row.get("property_id") or ""))].add(str(row["object"]).casefold())
    derived = []
    for row in statements:
        if row["label"] is not True:
            continue
        kind = datatype(row)
        text = str(row["text"])
        if kind == "time" and (new := shifted_date(row["object"], text, _rng(seed, "date", row))):
            derived.append(_derived(row, "wrong-value:date", "date", object=new))
        elif kind == "quantity" and (new := changed_amount(row["object"], text, _rng(seed, "amount", row))):
            derived.append(_derived(row, "wrong-value:amount", "amount", object=new))
        elif kind in STRING_TYPES and (new := changed_string(row["object"], text, _rng(seed, "string", row))):
            derived.append(_derived(row, "wrong-value:string", "string", object=new))
        elif kind == "wikibase-item":
            taken = held[(str(row["subject"]).casefold(), str(row.get("property_id") or ""))]
            new = swapped_item(row, pool, taken, _rng(seed, "item", row))
            if new:
                qid = pool[str(row["property_id"])][new]
                unlinked = {key: value for key, value in row.items() if key != "object_qid"}
                derived.append(_derived(unlinked, "wrong-value:item", "item", object=new,
                                        **({"object_qid": qid} if qid else {})))
    return derived


def other_subjects(rows: Sequence[Mapping], seed: int) -> list[dict]:
    """Each supported row's statement beside the text of another row whose subject differs and whose text does not
    mention this subject: of the same property if one fits, else of the same data set, else any."""
    donors: dict[str, Mapping] = {}
    for row in rows:
        donors.setdefault(str(row["text"]), row)
    derived = []
    for row in rows:
        if row["kind"] != "original" or row["label"] is not True:
            continue
        rng = _rng(seed, "other-subject", row)
        subject = str(row["subject"])
        tiers: list[Callable[[Mapping], bool]] = [
            lambda donor: donor.get("property_id") == row.get("property_id"),
            lambda donor: donor["source"] == row["source"],
            lambda donor: True]
        for tier in tiers:
            candidates = [donor for donor in donors.values() if tier(donor)
                          and str(donor["subject"]).casefold() != subject.casefold()]
            rng.shuffle(candidates)
            donor = next((donor for donor in candidates if not mentions(subject, str(donor["text"]))), None)
            if donor:
                page = {key: donor[key] for key in ("passages", "reference_url") if key in donor}
                kept = {key: value for key, value in row.items() if key not in ("passages", "reference_url")}
                derived.append(_derived(kept, "other-subject", "other-subject", text=donor["text"],
                                        text_from=donor["id"], **page))
                break
    return derived


def _rank(seed: int, row: Mapping) -> float:
    """Rows of one fact (T-REx's "-pos"/"-swap" pair, a row and its derived rows) rank alike, so a capped
    benchmark holds the same statements in every kind."""
    fact = re.sub(r"-(?:pos|swap)$", "", str(row["id"]).split(":")[0])
    return random.Random(f"{seed}:{fact}").random()


def capped(rows: Sequence[dict], limit: int | None, seed: int) -> list[dict]:
    """At most ``limit`` rows, each (data set, label) keeping its share; data order kept."""
    if limit is None or len(rows) <= limit:
        return list(rows)
    strata: dict[tuple, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        strata[(row["source"], row["label"])].append(index)
    quotas = {key: limit * len(members) / len(rows) for key, members in strata.items()}
    counts = {key: int(quota) for key, quota in quotas.items()}
    for key in sorted(strata, key=lambda key: (quotas[key] - counts[key], len(strata[key])),
                      reverse=True)[: limit - sum(counts.values())]:
        counts[key] += 1
    chosen = [index for key, members in strata.items()
              for index in sorted(members, key=lambda index: _rank(seed, rows[index]))[: counts[key]]]
    return [rows[index] for index in sorted(chosen)]


def build(sources: Mapping[str, Sequence[Mapping]], seed: int = 42, per_kind: int | None = None,
          other_subject_cap: int | None = None) -> list[dict]:
    """The benchmark: every kind capped at ``per_kind``; other-subject rows also at ``other_subject_cap``, by
    default the number of wrong-value rows kept, so that neither kind of negative outweighs the other."""
    rows = [row for source, source_rows in sources.items() for row in tag_originals(source, source_rows)]
    repeated = [key for key, count in Counter(str(row["id"]) for row in rows).items() if count > 1]
    if repeated:
        raise ValueError(f"ids repeated across the data sets: {', '.join(repeated[:5])}")
    by_kind: dict[str, list[dict]] = defaultdict(list)
    for row in [*rows, *wrong_values(rows, seed), *other_subjects(rows, seed)]:
        by_kind[row["kind"]].append(row)
    kept = {kind: capped(by_kind[kind], per_kind, seed) for kind in KINDS if kind != "other-subject"}
    if other_subject_cap is None:
        other_subject_cap = sum(len(kept[kind]) for kind in WRONG_VALUE_KINDS)
    limit = min(other_subject_cap, per_kind) if per_kind is not None else other_subject_cap
    kept["other-subject"] = capped(by_kind["other-subject"], limit, seed)
    return [row for kind in KINDS for row in kept[kind]]


def count_table(rows: Sequence[Mapping]) -> str:
    """Rows per kind and data set, with the labels."""
    sources = sorted({str(row["source"]) for row in rows})
    counts = Counter((row["kind"], row["source"]) for row in rows)
    true = Counter(row["kind"] for row in rows if row["label"] is True)
    lines = [f"{'kind':<20}" + "".join(f"{source:>22}" for source in sources) + f"{'total':>8}{'true':>6}"]
    for kind in [kind for kind in KINDS if any(row["kind"] == kind for row in rows)]:
        lines.append(f"{kind:<20}" + "".join(f"{counts[(kind, source)]:>22}" for source in sources)
                     + f"{sum(counts[(kind, source)] for source in sources):>8}{true[kind]:>6}")
    lines.append(f"{'all':<20}" + "".join(f"{sum(1 for row in rows if row['source'] == s):>22}" for s in sources)
                 + f"{len(rows):>8}{sum(true.values()):>6}")
    return "\n".join(lines)


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wtr", type=Path, required=True, help="WTR's dev.jsonl")
    parser.add_argument("--trex", type=Path, required=True, help="T-REx-Verify-Hard's dev.jsonl")
    parser.add_argument("--out", type=Path, required=True, help="the benchmark, JSON Lines for `refbot eval`")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--per-kind", type=int, metavar="N", help="at most N rows of each kind")
    args = parser.parse_args()
    if args.per_kind is not None and args.per_kind < 1:
        parser.error("--per-kind must be at least 1")
    if args.wtr.parent.name == args.trex.parent.name:
        parser.error("the data sets are named by their folders, which must differ")
    try:
        sources = {path.parent.name: read_rows(path) for path in (args.wtr, args.trex)}
    except (OSError, json.JSONDecodeError) as error:
        print(f"production_dev: cannot read a data set: {error}", file=sys.stderr)
        return 2
    rows = build(sources, args.seed, args.per_kind)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    print(count_table(rows))
    print(f"written: {args.out} (seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
