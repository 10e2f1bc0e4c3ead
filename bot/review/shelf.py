"""The review queue kept in the run ledger: each statement of a run read once from its trace element into a row of
``cards`` (what its card shows, as JSON, and the columns a filter reads), so that a queue page reads one card and a
few counts, and a decision one statement's rows, whatever the run's size — never the whole trace.

A run's statements are read into cards when the run is kept for review (``keep_for_review``, a trace imported), and
otherwise on the first page that needs them (a run kept before cards existed); a run still being checked gets its new
statements on the next page. Each statement is read once: its row names the element it was read from (``checks.id``),
and an element recorded again (a statement checked again in the run) is read again. Reading checks each proposal as
:func:`bot.review.proposals.statement_proposal` does, so a trace changed since refbot wrote it is refused here too.

A card is undecided while the run has no decision on it and no run has written its reference: the condition
:meth:`bot.review.store.ReviewLedger.reviews` gives "proposed" for, as a query (``_undecided``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import and_, exists, false, func, or_, select, true, tuple_
from sqlalchemy.orm import aliased
from sqlalchemy.engine import Connection

from bot.ledger.tables import card_runs, cards, checks, decisions, items, runs, writes
from bot.output.trace import from_string, tag
from bot.review.proposals import element_proposal
from bot.review.queue import DEFAULT_FILTER, Card, card_from_json, card_json, card_of
from bot.ledger.ledger import RunLedger

BATCH = 500  # statements read into cards per transaction


@dataclass(frozen=True)
class Group:
    """The run's cards of one property, kind and evidence against: what every count that no decision changes is
    summed from."""

    property_id: str
    label: str
    kind: str
    against: bool
    cards: int

    def shown_in(self, name: str, property_id: str = "") -> bool:
        """Whether the filter ``name`` (not "undecided", which decisions change) shows these cards."""
        if property_id and self.property_id != property_id:
            return False
        return {"supported": self.kind == "web", "corroborated": self.kind == "stated-in",
                "contradicted": self.against, "all": True}.get(name, False)


@dataclass(frozen=True)
class Counts:
    """What a queue page's header counts: the run's proposals, those decided, those left (of the property chosen),
    those with evidence against, and the cards the filter shows."""

    proposals: int
    decided: int
    left: int  # proposals left to decide, and statements with evidence against left to resolve
    against: int
    shown: int
    to_resolve: int = 0  # of ``left``: statements a source says are false, nothing proposed, not resolved yet


class Shelf:
    """One run's cards in the ledger. ``reviews``: the review state of some proposals (``ReviewLedger.reviews``),
    put on the cards read."""

    def __init__(self, ledger: RunLedger, run_id: int, reviews: Callable[[Sequence[str]], Mapping[str, Any]]) -> None:
        self.ledger = ledger
        self.run_id = run_id
        self._reviews = reviews
        self._complete = False  # every statement read, for good: what no decision changes is counted once
        self._groups: list[Group] | None = None

    # -- reading statements into cards -----------------------------------------------------------------------
    def fill(self, on_progress: Callable[[int], None] | None = None) -> int:
        """Read the run's statements that have no card yet (or were recorded again since) into cards, a batch per
        transaction; the statements read. Nothing is looked for once the run is finished and every statement read.
        InputError when a proposal's snaks disagree (:func:`statement_proposal`)."""
        if self._complete:
            return 0
        with self.ledger.transaction() as connection:
            if connection.execute(select(card_runs.c.run_id).where(card_runs.c.run_id == self.run_id)).first():
                self._complete = True
                return 0
        self._groups = None
        model = _model(self.ledger, self.run_id)
        read = 0
        while True:
            with self.ledger.transaction(lock=f"refbot-cards-{self.run_id}") as connection:
                rows = list(connection.execute(self._unread().limit(BATCH)))
                if not rows:
                    finished = connection.execute(select(runs.c.finished).where(runs.c.id == self.run_id)).scalar()
                    if finished is not None:
                        connection.execute(card_runs.insert().values(run_id=self.run_id))
                    return read
                self._store(connection, rows, model)
            read += len(rows)
            if on_progress is not None:
                on_progress(read)

    def _unread(self) -> Any:
        """The run's statements (with their item's element and place) that no card was read from."""
        read_already = exists().where(cards.c.run_id == checks.c.run_id, cards.c.guid == checks.c.guid,
                                      cards.c.check_order == checks.c.id)
        return (select(checks.c.id, checks.c.guid, checks.c.element, items.c.id.label("item_order"),
                       items.c.element.label("item_element"))
                .join(items, and_(items.c.run_id == checks.c.run_id, items.c.item == checks.c.item))
                .where(checks.c.run_id == self.run_id, ~read_already).order_by(checks.c.id))

    def _store(self, connection: Connection, rows: Sequence[Any], model: str) -> None:
        parsed: dict[int, Any] = {}
        source = f"run {self.run_id}"
        values = []
        for row in rows:
            item = parsed.get(row.item_order)
            if item is None:
                item = parsed[row.item_order] = from_string(row.item_element)
            statement = from_string(row.element)
            element_proposal(item, statement, source)  # InputError: what a curator reads is not what apply writes
            card = card_of(item, statement, model)
            values.append({
                "run_id": self.run_id, "guid": row.guid, "item_order": row.item_order, "check_order": row.id,
                "property": statement.get("property") or "",
                "property_label": (card.property_label if card else "")[:255],
                "kind": card.kind if card else "",
                "against": int(card is not None and card.shown_in("contradicted")),
                "card": card_json(card) if card is not None else ""})
        connection.execute(cards.delete().where(cards.c.run_id == self.run_id,
                                                cards.c.guid.in_([row.guid for row in rows])))
        connection.execute(cards.insert(), values)

    # -- what a queue page reads -----------------------------------------------------------------------------
    def card(self, guid: str, name: str = "all", property_id: str = "") -> Card | None:
        """The card of ``guid`` when the filter shows it, with its review state."""
        with self.ledger.transaction() as connection:
            text = connection.execute(select(cards.c.card).where(
                cards.c.run_id == self.run_id, cards.c.guid == guid, _shown(name),
                *((cards.c.property == property_id,) if property_id else ()))).scalar()
        if not text:
            return None
        card = card_from_json(text)
        review = self._reviews([card.guid])[card.guid]
        if not card.proposed and review.state == "proposed":  # evidence against, not resolved yet
            return replace(card, decision_id=review.decision_id)
        return replace(card, state=review.state, curator=review.curator, decided=review.decided,
                       decision_id=review.decision_id, note=review.note, dropped=review.dropped,
                       chosen_paragraph=review.paragraph, revision=review.revision,
                       revision_url=review.revision_url)

    def pick(self, name: str, property_id: str = "", *, at: str = "", after: str = "",
             decided: bool = False) -> Card | None:
        """The card a queue page shows: ``at`` when the filter shows it; after a card (``after``) skipped while
        browsing a filter other than "undecided", the next one in it; otherwise :meth:`next_card` (after a decision,
        or in the undecided filter: the next undecided card)."""
        card = self.card(at, name, property_id) if at else None
        if card is None and after and name != "undecided" and not decided:
            following = self.neighbour(name, property_id, after, +1)
            card = self.card(following) if following else None
        return card if card is not None else self.next_card(name, property_id, after=after, decided=decided)

    def next_card(self, name: str, property_id: str = "", *, after: str = "", decided: bool = False) -> Card | None:
        """The card to show after ``after`` (a card just decided or skipped; "": from the start): in the filter, the
        first card left to decide after it in the trace's order, wrapping round — ``after`` itself last, so a card
        skipped comes back only when nothing else is left —, else (filters other than "undecided", browsed rather
        than ``decided`` just now) the next card after it; None when the filter shows nothing, or, for "undecided"
        and after a decision, nothing is left to decide in it."""
        place = self._place(after) if after else None
        for wanted in ((_to_decide(),) if name == "undecided" or decided else (_to_decide(), true())):
            if place is None:
                found = self._first(wanted, name, property_id)
            else:
                found = (self._first(and_(wanted, _key() > tuple_(*place)), name, property_id)
                         or self._first(and_(wanted, _key() <= tuple_(*place)), name, property_id))
            if found is not None:
                return self.card(found)
        return None

    def neighbour(self, name: str, property_id: str, guid: str, step: int) -> str | None:
        """The GUID of the card before (``step`` -1) or after (+1) ``guid`` in the filter, wrapping round; None when
        the filter does not show ``guid`` or shows nothing else."""
        place = self._place(guid, name, property_id)
        if place is None:
            return None
        ahead, behind = _key() > tuple_(*place), _key() < tuple_(*place)
        if step > 0:
            return self._first(ahead, name, property_id) or self._first(behind, name, property_id)
        return self._first(behind, name, property_id, last=True) or self._first(ahead, name, property_id, last=True)

    def counts(self, name: str = DEFAULT_FILTER, property_id: str = "") -> Counts:
        """The counts a queue page shows. Those no decision changes are summed from :meth:`groups`; those decided
        are counted from the run's decisions and the references written, so that no count reads every card."""
        groups = self.groups()
        proposals = sum(group.cards for group in groups if group.kind)
        in_property = sum(group.cards for group in groups if group.kind and group.property_id == property_id)
        decided = self._decided()
        to_resolve = self._to_resolve(property_id)
        left = ((in_property - self._decided(property_id)) if property_id else proposals - decided) + to_resolve
        shown = left if name == "undecided" else sum(group.cards for group in groups
                                                     if group.shown_in(name, property_id))
        return Counts(proposals, decided, left, self._unresolved_count(), shown, to_resolve)

    def groups(self) -> list[Group]:
        """The run's cards counted by property, kind and evidence against (read once when the run's cards are
        complete)."""
        groups = self._groups
        if groups is None:
            with self.ledger.transaction() as connection:
                rows = list(connection.execute(
                    select(cards.c.property, func.max(cards.c.property_label), cards.c.kind, cards.c.against,
                           func.count()).where(cards.c.run_id == self.run_id, _shown("all"))
                    .group_by(cards.c.property, cards.c.kind, cards.c.against)))
            groups = [Group(pid, label or pid, kind, bool(against), int(count))
                      for pid, label, kind, against, count in rows]
            if self._complete:
                self._groups = groups
        return groups

    def properties(self) -> list[tuple[str, str, int]]:
        """(property id, label, cards) of the properties with cards, by label."""
        counted: dict[tuple[str, str], int] = {}
        for group in self.groups():
            counted[(group.property_id, group.label)] = counted.get((group.property_id, group.label), 0) + group.cards
        return sorted(((pid, label, count) for (pid, label), count in counted.items()), key=lambda entry: entry[1])

    def _decided(self, property_id: str = "") -> int:
        """The run's proposals (of ``property_id``, when given) decided: by a decision of the run, or a reference
        written in any run. Counted from the decisions and the writes, which are few beside the run's cards."""
        proposal = and_(cards.c.run_id == self.run_id, cards.c.kind != "",
                        *((cards.c.property == property_id,) if property_id else ()))
        by_decision = (select(func.count(func.distinct(decisions.c.guid)))
                       .select_from(decisions.join(cards, and_(cards.c.run_id == decisions.c.run_id,
                                                               cards.c.guid == decisions.c.guid)))
                       .where(decisions.c.run_id == self.run_id, proposal))
        undecided_written = (select(func.count(func.distinct(writes.c.guid)))
                             .select_from(writes.join(cards, and_(cards.c.run_id == self.run_id,
                                                                  cards.c.guid == writes.c.guid)))
                             .where(writes.c.state == "written", ~undone_since(), proposal,
                                    ~exists().where(decisions.c.run_id == self.run_id,
                                                    decisions.c.guid == writes.c.guid)))
        with self.ledger.transaction() as connection:  # one view of both
            return int(connection.execute(by_decision).scalar_one()) + int(
                connection.execute(undecided_written).scalar_one())

    def _to_resolve(self, property_id: str = "") -> int:
        """The run's statements (of ``property_id``, when given) a source says are false, with nothing proposed,
        that no curator resolved yet."""
        with self.ledger.transaction() as connection:
            return int(connection.execute(select(func.count()).select_from(cards).where(
                cards.c.run_id == self.run_id, _unresolved(),
                *((cards.c.property == property_id,) if property_id else ()))).scalar_one())

    def _unresolved_count(self) -> int:
        """The run's cards with evidence against that nobody has decided (approved, rejected) or resolved yet."""
        with self.ledger.transaction() as connection:
            return int(connection.execute(select(func.count()).select_from(cards).where(
                cards.c.run_id == self.run_id, cards.c.against == 1, or_(_undecided(), _unresolved()))).scalar_one())

    def left_by_property(self) -> dict[str, int]:
        """The proposals left to decide and the statements with evidence against left to resolve, by property."""
        with self.ledger.transaction() as connection:
            return {pid: int(count) for pid, count in connection.execute(
                select(cards.c.property, func.count()).where(cards.c.run_id == self.run_id, _to_decide())
                .group_by(cards.c.property))}

    def alternatives(self, guid: str) -> tuple[Any, ...]:
        """The other supporting paragraphs the statement's card offers (``bot.review.alternatives``)."""
        with self.ledger.transaction() as connection:
            text = connection.execute(select(cards.c.card).where(cards.c.run_id == self.run_id,
                                                                 cards.c.guid == guid)).scalar()
        return card_from_json(text).alternatives if text else ()

    def against_only(self, guids: Sequence[str]) -> set[str]:
        """Which of ``guids`` are statements a source says are false with nothing proposed."""
        with self.ledger.transaction() as connection:
            return set(connection.execute(select(cards.c.guid).where(
                cards.c.run_id == self.run_id, cards.c.kind == "", cards.c.against == 1,
                cards.c.guid.in_(list(guids)))).scalars())

    def proposed(self, guids: Sequence[str]) -> set[str]:
        """Which of ``guids`` the run proposes a reference for."""
        with self.ledger.transaction() as connection:
            return set(connection.execute(select(cards.c.guid).where(
                cards.c.run_id == self.run_id, cards.c.kind != "", cards.c.guid.in_(list(guids)))).scalars())

    def proposals(self) -> list[str]:
        """The GUIDs of the run's proposals, in the trace's order."""
        with self.ledger.transaction() as connection:
            return list(connection.execute(select(cards.c.guid).where(cards.c.run_id == self.run_id, cards.c.kind != "")
                                           .order_by(*_key().clauses)).scalars())

    def _place(self, guid: str, name: str = "all", property_id: str = "") -> tuple[int, int] | None:
        with self.ledger.transaction() as connection:
            row = connection.execute(select(cards.c.item_order, cards.c.check_order).where(
                cards.c.run_id == self.run_id, cards.c.guid == guid, _shown(name),
                *((cards.c.property == property_id,) if property_id else ()))).first()
        return (int(row.item_order), int(row.check_order)) if row is not None else None

    def _first(self, where: Any, name: str, property_id: str, *, last: bool = False) -> str | None:
        """The GUID of the first (``last``: the last) card in the filter that ``where`` holds for."""
        order = [column.desc() for column in _key().clauses] if last else list(_key().clauses)
        with self.ledger.transaction() as connection:
            return connection.execute(
                select(cards.c.guid).where(cards.c.run_id == self.run_id, _shown(name), where,
                                           *((cards.c.property == property_id,) if property_id else ()))
                .order_by(*order).limit(1)).scalar()


def _key() -> Any:
    """A card's place in the trace's order."""
    return tuple_(cards.c.item_order, cards.c.check_order)


def undone_since() -> Any:
    """The condition that a write row's reference was undone after it was written (a later ``undone`` row)."""
    later = aliased(writes)
    return exists().where(later.c.guid == writes.c.guid, later.c.state == "undone", later.c.id > writes.c.id)


def _undecided() -> Any:
    decided = exists().where(decisions.c.run_id == cards.c.run_id, decisions.c.guid == cards.c.guid)
    written = exists().where(writes.c.guid == cards.c.guid, writes.c.state == "written", ~undone_since())
    return and_(cards.c.kind != "", ~decided, ~written)


def _unresolved() -> Any:
    """A statement a source says is false, nothing proposed, that no curator resolved yet."""
    decided = exists().where(decisions.c.run_id == cards.c.run_id, decisions.c.guid == cards.c.guid)
    return and_(cards.c.kind == "", cards.c.against == 1, ~decided)


def _to_decide() -> Any:
    """What the default queue shows: a proposal nobody decided, or evidence against nobody resolved."""
    return or_(_undecided(), _unresolved())


def _shown(name: str) -> Any:
    """The condition of the filter ``name`` (``bot.review.queue.FILTERS``; as ``Card.shown_in``)."""
    if name == "undecided":
        return _to_decide()
    if name == "supported":
        return cards.c.kind == "web"
    if name == "corroborated":
        return cards.c.kind == "stated-in"
    if name == "contradicted":
        return cards.c.against == 1
    if name == "all":
        return or_(cards.c.kind != "", cards.c.against == 1)
    return false()


def _model(ledger: RunLedger, run_id: int) -> str:
    element = ledger.run_element(run_id)
    judge = from_string(element).find(tag("judge")) if element else None
    return judge.get("model", "") if judge is not None else ""
