"""A question → a checked query and its worklist, as Auto-KGQAGPT does it: link the question's words; when the draft
built from them reads every word of the question (``Draft.complete``) and returns items, take it without the model;
else show the model the fragment and the draft, let it write up to ``n`` candidates (one repair each when the
checker refuses one), run the valid ones, and choose: the only candidate with items, or the model's pick among
samples of their results (ties to the simpler query); when none returned items, the draft itself (candidate 0), if
it returns any. The first candidate is the model's greedy answer, the others samples, written one at a time; before
the last, writing stops once two answers agree — two candidates, or a candidate and the draft, return the same
items (adaptive consistency: sample again only while answers disagree). The model, the endpoint and the lookup are
parameters; every query sent has passed ``bot.asking.safety``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from bot.asking.draft import Draft
from bot.asking.fragment import Triple, fragment_text, known_ids
from bot.asking.linking import Link
from bot.asking.safety import Checked, QueryRefused, check, ids
from bot.datamodel import QID_PATTERN
from bot.errors import QueryError
from bot.judge.prompts import SparqlTemplate
from bot.selection.binding import Query, entity_id

if TYPE_CHECKING:
    from bot.judge.backend import Backend
    from bot.selection.endpoint import SparqlEndpoint

SAMPLE = 5  # items of each candidate's result shown to the model when it chooses
LETTERS = "abcdefgh"


@dataclass
class Written:
    """One candidate: what the model wrote, what the checker said, what the endpoint returned."""

    number: int
    written: str  # the model's query (after a repair, the repaired one)
    sent: str = ""  # the query sent (prefixes and LIMIT added); "" when it was refused or not run
    refused: str = ""  # the checker's reason, when it stayed refused
    repaired: str = ""  # the first refusal's reason, when a repair followed
    items: list[str] = field(default_factory=list)
    error: str = ""  # the endpoint's error
    same_as: int | None = None  # the earlier candidate with the same query
    first: str = ""  # the query as first written, before a repair

    @property
    def valid(self) -> bool:
        return bool(self.sent)


@dataclass
class Answer:
    question: str
    links: list[Link]
    fragment: str
    candidates: list[Written]
    chosen: Written | None
    why: str
    draft: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


def fill(text: str, **values: object) -> str:
    """The template with its ``{name}`` placeholders filled; other braces (SPARQL's) stay as they are."""
    for name, value in values.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def extracted(answer: str) -> str:
    """The query in a model's answer: its ```sparql block (or any fenced block), else the text from the first
    PREFIX or SELECT on."""
    fenced = re.findall(r"```[ \t]*(?:sparql|SPARQL|sql)?[ \t]*\n(.*?)(?:```|\Z)", answer, re.DOTALL)
    if fenced:
        return max(fenced, key=lambda block: ("SELECT" in block.upper(), len(block))).strip()
    start = re.search(r"\b(PREFIX|SELECT)\b", answer, re.IGNORECASE)
    return answer[start.start():].strip() if start else answer.strip()


def _id_order(entity: str) -> tuple[str, int]:
    return entity[0], int(entity[1:])


def _normalised(query: str) -> str:
    return " ".join(query.split()).casefold()


def _by_items(written: Iterable[Written]) -> dict[frozenset[str], list[Written]]:
    """The candidates that returned items, by the items they returned, in their order."""
    groups: dict[frozenset[str], list[Written]] = {}
    for candidate in written:
        if candidate.items:
            groups.setdefault(frozenset(candidate.items), []).append(candidate)
    return groups


def _simplest(group: Sequence[Written]) -> Written:
    """The shortest query of those returning the same items (the earlier on a tie)."""
    return min(group, key=lambda w: (len(_normalised(w.sent)), w.number))


class Asker:
    """``Asker(backend, endpoint, template).ask(question, links, triples)``. ``backend`` may be a function giving
    the model, called the first time a candidate is written (a complete draft needs no model loaded)."""

    def __init__(self, backend: Backend | Callable[[], Backend], endpoint: SparqlEndpoint, template: SparqlTemplate,
                 *, candidates: int = 3, limit: int = 500,
                 labels: Callable[[Sequence[str]], dict[str, str]] | None = None,
                 take_complete_draft: bool = True) -> None:
        self._backend, self.endpoint, self.template = backend, endpoint, template
        self.count, self.limit, self.labels = max(1, candidates), limit, labels
        self.take_complete_draft = take_complete_draft
        self.prompt_tokens = self.completion_tokens = 0

    @property
    def backend(self) -> Backend:
        if not hasattr(self._backend, "complete"):
            self._backend = self._backend()
        return self._backend  # type: ignore[return-value]

    def ask(self, question: str, links: list[Link], triples: dict[str, list[Triple]], *,
            draft: Draft | None = None, properties: Iterable[str] = ()) -> Answer:
        """``draft``: the query the model starts from; ``properties``: the ids of every property the endpoint has
        (a candidate may name them, the prompt does not list them)."""
        started = time.monotonic()
        self.prompt_tokens = self.completion_tokens = 0
        fragment = fragment_text(links, triples)
        shown = known_ids(links, triples)
        known = shown | set(properties)
        sketch = draft.text if draft is not None and draft.text else ""
        messages = [{"role": "system", "content": self.template.system},
                    {"role": "user", "content": fill(self.template.user, question=question,
                                                     fragment=fragment or "(no term of the graph was recognised)",
                                                     draft=sketch or f"SELECT DISTINCT ?item WHERE {{\n}}\nLIMIT "
                                                                     f"{self.limit}",
                                                     limit=self.limit)}]
        written: list[Written] = []
        complete = draft is not None and draft.complete and self.take_complete_draft
        drafted = self._drafted(sketch, known) if sketch and (self.count > 1 or complete) else None
        if complete and drafted is not None and drafted.items:
            written.append(drafted)
            return Answer(question, links, fragment, written, drafted,
                          "the draft built from the linked terms reads every word of the question: no candidate "
                          "written", sketch, 0, 0, time.monotonic() - started)
        agreed: tuple[Written, str] | None = None
        for number in range(1, self.count + 1):
            self._add(self._write(number, messages, known, shown, written), written)
            agreed = self._agreement(written, drafted) if number < self.count else None
            if agreed is not None:
                break
        chosen, why = agreed if agreed is not None else self._choose(question, written)
        if chosen is None and sketch:
            chosen, why = self._fall_back(drafted or self._drafted(sketch, known), why, written)
        return Answer(question, links, fragment, written, chosen, why, sketch, self.prompt_tokens,
                      self.completion_tokens, time.monotonic() - started)

    def _add(self, candidate: Written, written: list[Written]) -> None:
        """Run ``candidate`` (unless an earlier one wrote the same query) and add it to ``written``."""
        earlier = next((w for w in written if _normalised(w.written) == _normalised(candidate.written)), None)
        if earlier is not None:
            candidate.same_as, candidate.sent, candidate.items = earlier.number, earlier.sent, earlier.items
            candidate.refused, candidate.error = earlier.refused, earlier.error
        elif candidate.valid:
            self._run(candidate)
        written.append(candidate)

    @staticmethod
    def _agreement(written: list[Written], drafted: Written | None) -> tuple[Written, str] | None:
        """The candidate to choose before all are written, once two answers agree — two candidates, or a candidate
        and the draft (built from the graph's own patterns for the linked terms, without the model), returned the
        same items: the simplest query among them. None while no two agree (adaptive consistency: sample again only
        while answers disagree); once every candidate is written, the choice is :meth:`_choose`'s, as it was."""
        for items, group in _by_items(written).items():
            with_draft = drafted is not None and frozenset(drafted.items) == items
            if len(group) + with_draft < 2:
                continue
            simplest = _simplest(group)
            numbers = " and ".join(str(w.number) for w in group)
            said = (f"candidate{'s' if len(group) > 1 else ''} {numbers}" +
                    (" and the draft built from the linked terms" if with_draft else ""))
            return simplest, (f"{said} returned the same {len(items)} item(s)" +
                              ("; the simplest query" if len(group) > 1 else "") + ": no further candidate written")
        return None

    def _drafted(self, sketch: str, known: set[str]) -> Written:
        """The draft as candidate 0, checked and run as the model's are (``sent`` empty when it was refused)."""
        draft = Written(0, sketch)
        try:
            draft.sent = check(sketch, limit=self.limit, known=known).text
        except QueryRefused as refusal:
            draft.refused = str(refusal)
            return draft
        self._run(draft)
        return draft

    @staticmethod
    def _fall_back(draft: Written, why: str, written: list[Written]) -> tuple[Written | None, str]:
        """When no candidate returned items: the draft, built from the graph's own patterns for the linked terms,
        if it returns any (candidate 0)."""
        if not draft.valid:
            return None, why
        written.append(draft)
        if not draft.items:
            return None, why
        return draft, f"{why}, so the draft built from the linked terms"

    def _complete(self, messages: list[dict[str, str]], number: int) -> str:
        generation = self.template.generation if number == 1 else replace(
            self.template.sampling, seed=self.template.sampling.seed + number)
        completion = self.backend.complete(messages, generation)
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        return completion.text

    def _confirmed(self, text: str, known: set[str]) -> set[str]:
        """``known`` and the items ``text`` names that the endpoint has (a label in the configured languages; a
        "label" that is only the id given back confirms nothing)."""
        unknown = [entity for entity in ids(text) if entity not in known and entity.startswith("Q")]
        if not unknown or self.labels is None:
            return known
        try:
            found = self.labels(unknown)
        except QueryError:
            return known
        return known | {entity for entity in unknown if found.get(entity) and found[entity] != entity}

    def _write(self, number: int, messages: list[dict[str, str]], known: set[str], shown: set[str],
               earlier: Sequence[Written] = ()) -> Written:
        """The model's candidate ``number``, checked, and repaired once if refused. A sample that writes what an
        earlier candidate first wrote is that candidate: the same check, the same repair (not asked again)."""
        answer = self._complete(messages, number)
        candidate = Written(number, extracted(answer))
        candidate.first = candidate.written
        same = next((w for w in earlier if _normalised(w.first) == _normalised(candidate.first)), None)
        if same is not None:
            candidate.written, candidate.sent, candidate.repaired, candidate.refused = (
                same.written, same.sent, same.repaired, same.refused)
            return candidate
        checked: Checked | None = None
        try:
            checked = check(candidate.written, limit=self.limit, known=self._confirmed(candidate.written, known))
        except QueryRefused as refusal:
            candidate.repaired = str(refusal)
            again = [*messages, {"role": "assistant", "content": answer},
                     {"role": "user", "content": fill(self.template.repair, query=candidate.written, reason=refusal,
                                                      ids=", ".join(sorted(shown, key=_id_order)))}]
            candidate.written = extracted(self._complete(again, number))
            try:
                checked = check(candidate.written, limit=self.limit,
                                known=self._confirmed(candidate.written, known))
            except QueryRefused as second:
                candidate.refused = str(second)
        if checked is not None:
            candidate.sent = checked.text
        return candidate

    def _run(self, candidate: Written) -> None:
        try:
            name = f"candidate {candidate.number}" if candidate.number else "the draft"
            rows = self.endpoint.select(Query(f"{name} of refbot select --ask", candidate.sent))
        except QueryError as error:
            candidate.error = str(error)
            return
        seen: dict[str, None] = {}
        for row in rows:
            term = row.get("item")
            if term is not None and term.kind == "uri":
                item = entity_id(term.value)
                if QID_PATTERN.match(item):
                    seen.setdefault(item, None)
        candidate.items = sorted(seen, key=lambda item: int(item[1:]))  # the worklist in a stable order

    def _choose(self, question: str, written: list[Written]) -> tuple[Written | None, str]:
        answered = [w for w in written if w.same_as is None and w.items]
        if not answered:
            return None, ("no candidate returned items" if any(w.valid and not w.error for w in written)
                          else "no candidate could be run")
        simplest = [_simplest(group) for group in _by_items(answered).values()]
        simplest.sort(key=lambda w: w.number)
        if len(simplest) == 1:
            others = len(answered) - 1
            return simplest[0], ("the only candidate that returned items" if not others else
                                 f"{others + 1} candidates returned the same items; the simplest query")
        options = []
        names = self.labels([i for w in simplest for i in w.items[:SAMPLE]]) if self.labels else {}
        for letter, candidate in zip(LETTERS, simplest):
            sample = ", ".join(f"{names[i]} ({i})" if names.get(i) else i for i in candidate.items[:SAMPLE])
            more = f" and {len(candidate.items) - SAMPLE} more" if len(candidate.items) > SAMPLE else ""
            options.append(f"{letter}) {len(candidate.items)} item(s): {sample}{more}\n```sparql\n"
                           f"{candidate.written}\n```")
        letters = LETTERS[:len(simplest)]
        messages = [{"role": "system", "content": self.template.system},
                    {"role": "user", "content": fill(self.template.choose, question=question,
                                                     options="\n\n".join(options), letters=", ".join(letters))}]
        choice = self.backend.choose(messages, list(letters))
        self.prompt_tokens += choice.prompt_tokens
        if not choice.probabilities:
            return simplest[0], "the model named no candidate: the first that returned items"
        best = max(choice.probabilities.values())
        tied = [letter for letter in letters if choice.probabilities.get(letter, 0.0) >= best - 1e-6]
        picked = _simplest([simplest[letters.index(letter)] for letter in tied])
        return picked, (f"the model chose candidate {picked.number} (p = {best:.2f}) among "
                        f"{len(simplest)} with different items")
