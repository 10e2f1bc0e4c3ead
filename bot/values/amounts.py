"""A quantity as pages write it: "85,868", "85 868", "85.868" (a German page's grouping), "1,96" (a decimal
comma), "1.2 million", "43.4" for 43.446 where the page rounds. Pure.

Numbers are parsed where they occur in the text and compared with the value, rather than spelling out every way
the value could be written: each number is read with "," and "." as grouping or as decimal separators (both
readings are tried), scaled by a following "thousand"/"million"/"billion", and counts when it lies within the
value's bounds, or equals the value rounded to the number's own decimals with at least three significant
digits (a page giving "271 m" for 271.3 m states it; "2" for 2.4 does not). The unit is not required: pages
write units in too many ways ("m", "metres", "ft (83 m)") for a check that runs on every paragraph. Small whole
amounts in words ("three children") are found by ``bot.values.words``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_RAW = re.compile(r"^([+-]?\d+(?:\.\d+)?)(?:~(\d+(?:\.\d+)?)|\[([+-]?\d+(?:\.\d+)?),([+-]?\d+(?:\.\d+)?)\])?"
                  r"(?:U\d+)?$")
_TEXT = re.compile(r"^([+-]?[\d.]+)(?:±([\d.]+)|\s\(([+-]?[\d.]+)–([+-]?[\d.]+)\))?(?:\s.*)?$")
# A number as texts write it: digits with optional grouping (",", ".", thin or no-break spaces, "'") and
# decimals; a leading sign only when it is not a hyphen between words.
NUMBER = re.compile(r"(?<![\w.,])(?:[-−+](?=\d))?\d{1,3}(?:(?:[,.'’\u00a0\u202f ])\d{3})+(?:[.,]\d+)?(?![\d])"
                    r"|(?<![\w.,])(?:[-−+](?=\d))?\d+(?:[.,]\d+)?(?![\d])")
SCALES = {"thousand": Decimal(1000), "million": Decimal(10) ** 6, "billion": Decimal(10) ** 9,
          "mil.": Decimal(10) ** 6, "mio.": Decimal(10) ** 6, "millionen": Decimal(10) ** 6,
          "milionů": Decimal(10) ** 6, "miliony": Decimal(10) ** 6, "mld.": Decimal(10) ** 9,
          "milliarden": Decimal(10) ** 9}
SCALE_WORD = re.compile(r"\s?(" + "|".join(re.escape(word) for word in SCALES) + r")(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class Amount:
    value: Decimal
    lower: Decimal | None = None
    upper: Decimal | None = None


def parse_amount(raw: str, text: str = "") -> Amount | None:
    """The amount and bounds from the QuickStatements form (``1.96~0.01U11573``, ``5[4,6]``), else from the
    text `refbot select` shows (``271 metre``, ``1.96±0.01 metre``)."""
    for pattern, candidate in ((_RAW, raw.strip()), (_TEXT, text.strip())):
        match = pattern.match(candidate)
        if not match:
            continue
        try:
            value = Decimal(match.group(1))
            if match.group(2):
                spread = Decimal(match.group(2))
                return Amount(value, value - spread, value + spread)
            if match.group(3):
                return Amount(value, Decimal(match.group(3)), Decimal(match.group(4)))
            return Amount(value)
        except InvalidOperation:
            continue
    return None


def readings(number: str) -> set[Decimal]:
    """Every value ``number`` can be read as: "85,868" is 85868 or 85.868; "1.234,5" is 1234.5."""
    digits = number.replace("−", "-").replace("\u00a0", " ").replace("\u202f", " ").replace("’", "'")
    sign = "-" if digits.startswith("-") else ""
    digits = digits.lstrip("+-")
    found = set()
    separators = [char for char in digits if not char.isdigit()]
    for grouping, decimal in ((",", "."), (".", ","), (" ", "."), (" ", ","), ("'", ".")):
        if separators.count(decimal) > 1:
            continue
        if any(char not in (grouping, decimal) for char in separators):
            continue
        whole, _, fraction = digits.partition(decimal)
        groups = whole.split(grouping)
        if len(groups) > 1 and (not all(len(group) == 3 for group in groups[1:]) or groups[0].startswith("0")):
            continue
        try:
            found.add(Decimal(sign + "".join(groups) + ("." + fraction if fraction else "")))
        except InvalidOperation:
            continue
    return found


def _decimals(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _significant(number: Decimal) -> int:
    return len(number.normalize().as_tuple().digits) if number else 0


def states(amount: Amount, number: Decimal, written: str) -> bool:
    if amount.lower is not None and amount.upper is not None:
        return amount.lower <= number <= amount.upper
    if number == amount.value:
        return True
    digits = sum(char.isdigit() for char in written)
    if digits < 3:
        return False
    places = _decimals(number)
    try:
        return amount.value.quantize(Decimal(1).scaleb(-places)) == number
    except InvalidOperation:
        return False


def find_amount(amount: Amount, text: str) -> Iterator[tuple[int, int]]:
    """Where ``text`` states the amount, as (start, end) spans."""
    for match in NUMBER.finditer(text):
        written = match.group(0)
        end = match.end()
        scale = SCALE_WORD.match(text, end)
        factor = SCALES[scale.group(1).lower()] if scale else Decimal(1)
        if any(states(amount, reading * factor, written) for reading in readings(written)):
            yield match.start(), scale.end() if scale else end


def whole_number(amount: Amount) -> int | None:
    """The amount as a whole number, when it is one and has no bounds (pages may write it in words)."""
    if amount.lower is not None or amount.upper is not None or amount.value != amount.value.to_integral_value():
        return None
    return int(amount.value)
