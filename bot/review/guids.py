"""Statement GUIDs as curators paste them, turned into the GUIDs a run's proposals carry. Pure.

Wikidata and its query service print one statement in four forms: ``Q42$F078E5B3-…`` (the entity JSON's id),
``Q42-F078E5B3-…`` (the query service's statement node, whose first ``-`` after the entity id stands for the
``$``), ``wds:Q42-F078E5B3-…`` and ``http://www.wikidata.org/entity/statement/Q42-F078E5B3-…``. A shell eats an
unquoted ``$`` and what follows it (``Q42$F078E5B3-F9A8-…`` arrives as ``Q42-F9A8-…``, ``Q42$963B…`` as
``Q4263B…``), so a GUID that is not among the run's is named with that hint. A verify run's fixes are keyed by the
statement's GUID and the cited reference's hash (``Q42$F078…#9a24…``): a statement's GUID alone names its one fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from bot.errors import InputError

_PREFIX = re.compile(r"^(?:wds:|https?://[^/\s]+/entity/statement/)", re.IGNORECASE)
_GUID = re.compile(r"^([QPLM])(\d+)([$-])(.+)$", re.IGNORECASE)
_ENTITY = re.compile(r"^([QPLM])(\d+)", re.IGNORECASE)


def canonical(argument: str) -> str:
    """``wds:q42-F078…`` → ``Q42$F078…``; an argument that is no statement GUID in any form as it came."""
    text = _PREFIX.sub("", argument.strip())
    match = _GUID.match(text)
    if not match or not match.group(4).strip("-$"):
        return text
    letter, number, _, rest = match.groups()
    return f"{letter.upper()}{number}${rest}"


def shell_hint(argument: str, known: Iterable[str] = ()) -> str:
    """The hint, with the entity id the argument starts with (one of ``known``'s, when the shell glued a digit of
    the UUID to it)."""
    text = _PREFIX.sub("", argument.strip()).upper()
    entities = sorted({guid.partition("$")[0].upper() for guid in known}, key=len, reverse=True)
    qid = next((entity for entity in entities if text.startswith(entity)), "")
    if not qid:
        entity = _ENTITY.match(text)
        qid = f"{entity.group(1)}{entity.group(2)}" if entity else "Q42"
    return f"quote the GUID ('{qid}$…') or use the {qid}-… form"


def resolve(arguments: Iterable[str], known: Sequence[str], run_id: int) -> list[str]:
    """The run's GUIDs the arguments name, in their order: any of the four forms, the entity id's letter in
    either case, the rest matched exactly or, when that names one GUID only, in any case. InputError naming the
    first argument that names none of them, with the shell hint."""
    exact = set(known)
    folded: dict[str, list[str]] = {}
    fixes: dict[str, list[str]] = {}  # a statement's GUID → its references' fixes (``GUID#HASH``, a verify run's)
    for guid in known:
        folded.setdefault(guid.casefold(), []).append(guid)
        if "#" in guid:
            fixes.setdefault(guid.partition("#")[0].casefold(), []).append(guid)
    found = []
    for argument in arguments:
        guid = canonical(argument)
        if guid not in exact and len(folded.get(guid.casefold(), [])) == 1:
            guid = folded[guid.casefold()][0]
        if guid not in exact and len(fixes.get(guid.casefold(), [])) == 1:
            guid = fixes[guid.casefold()][0]  # the statement's one reference with a fix proposed
        if guid not in exact:
            if fixes.get(guid.casefold()):
                raise InputError(f"run {run_id} proposes fixes for {len(fixes[guid.casefold()])} of statement "
                                 f"{argument}'s references", hint="name one, with its reference's hash: " +
                                 ", ".join(f"'{key}'" for key in fixes[guid.casefold()]))
            if _GUID.match(guid) is None:
                raise InputError(f"{argument!r} is not a whole statement GUID (an entity id, $ and a UUID)",
                                 hint=shell_hint(argument, known))
            if "$" in argument:  # quoted whole: the shell ate nothing
                raise InputError(f"run {run_id} proposes no reference for statement {argument}",
                                 hint=f"its report lists what it proposes (`refbot report --run {run_id}`); a fix to "
                                      "a reference a statement cites is named GUID#HASH, the reference's hash after "
                                      "the statement's GUID")
            raise InputError(f"run {run_id} proposes no reference for statement {argument}",
                             hint=shell_hint(argument, known))
        found.append(guid)
    return found
