"""The judge: renders a template, asks a backend, reads the answer, and returns a :class:`Judgement`."""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from dataclasses import dataclass, replace
from typing import TypeVar

from bot.judge.answers import parse_option
from bot.datamodel import Claim, Compared, Contradiction, Judgement, Verdict
from bot.errors import BackendUnavailable, JudgeError
from bot.judge.backend import Backend
from bot.judge.fitting import split_to_fit
from bot.judge.calibration import Calibration, decide
from bot.judge.contradictions import candidates as contradiction_candidates, stated_for_another
from bot.judge.features import ACROSS_ALPHABETS
from bot.judge.focus import focus
from bot.judge.naming import Naming, checked, worded_sentences
from bot.judge.periods import occurrences, timing
from bot.values.names import mentions
from bot.pool import in_flight
from bot.judge.prompts import (NAMING_GENERATION, SUMMARY_ANSWER, Generation, Template, as_relation, naming_messages,
                               summary_continuation, summary_prefix)
from bot.values import DATE, LITERAL, TRANSCRIBED, Found, names_beyond_reach, value_finder

# Other values a text writes for the property that are asked about, at most (each costs a judgement).
CONTRADICTION_CANDIDATES = 2
# Parts of a snippet too long for the model's context in which the model is asked to name an item value, at most.
NAMING_PARTS = 2

LETTERS = ("a", "b", "c")
# Tokens a chat template adds around the messages (role markers, special tokens); counted generously.
CHAT_OVERHEAD_TOKENS = 48

Key = TypeVar("Key")


@dataclass(frozen=True)
class Explanation:
    """A justification written after the judgement, and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float


def _sum_costs(judgement: Judgement, judgements: list[Judgement]) -> Judgement:
    """``judgement`` with the tokens and seconds of all ``judgements`` (the questions one verdict took)."""
    return replace(judgement, prompt_tokens=sum(j.prompt_tokens for j in judgements),
                   completion_tokens=sum(j.completion_tokens for j in judgements),
                   latency_s=sum(j.latency_s for j in judgements), parts=max(j.parts for j in judgements),
                   attempts=sum(j.attempts for j in judgements))


class Judge:
    """Decides whether a snippet supports a claim, using only the snippet."""

    def __init__(self, backend: Backend, template: Template, *, threshold: float | None = None,
                 justify: bool = True, calibration: Calibration | None = None, naming: Naming | None = None) -> None:
        """``threshold``: the calibrated support at or above which a paragraph supports (default: the
        calibration's, chosen for precision 0.95 on development data; 0.5 without a calibration). ``naming``: how
        the words the model names for an item value the text does not write are checked (``bot.judge.naming``);
        None: such a text never supports the item."""
        self.backend = backend
        self.template = template
        self.calibration = calibration or Calibration.identity()
        self.threshold = self.calibration.accept if threshold is None else threshold
        self.justify = justify and bool(template.justification)
        self.naming = naming
        # Requests in flight across every thread using this judge (statements are checked side by side): an
        # in-process model answers one at a time, a server up to its configured number.
        self._slots = threading.BoundedSemaphore(max(1, backend.max_in_flight))

    @property
    def model_id(self) -> str:
        return self.backend.model_id

    def judge(self, claim: Claim, snippet: str, *, justify: bool | None = None) -> Judgement:
        """``justify`` False leaves the justification out (``explain`` writes it later for the paragraph that
        is proposed); None follows the judge's own setting.

        A text that does not write the statement's value in any form refbot knows (``bot.values``: its label, an
        alias or a name Wikidata links to it; a date, amount, string as texts write them) never supports it: the
        model is not asked, whatever it would say; except an item the model names in the text's words which refbot
        shows to name it (``bot.judge.naming``: FactGenius' two steps), whose judgement records the words and how
        they were checked; and an item whose names a text in another alphabet cannot write (an English label in a
        Russian text that translates it, "Военно-воздушные силы" for Royal Air Force:
        ``bot.values.names_beyond_reach``), where the model is asked as for a text writing it and the judgement
        records ``ACROSS_ALPHABETS`` (on 337 Russian sentences with English labels it supported 50 of the 86 true
        statements and 2 of the 115 false ones the rule had refused unasked). If the text writes another value of
        the same kind (another date, amount, identifier; for a single-valued item property, another proper name),
        the model is asked about the claim with that value instead: when it supports it, the text contradicts the
        statement (verdict ``CONTRADICTS``, ``Judgement.contradiction``)."""
        justify = self.justify if justify is None else justify and self.justify
        found = _finder(claim)(snippet) if claim.value is not None else None
        # "Eva's cousin Jan was born on 15 March 1970": not the subject's value
        spans = (occurrences(_finder(claim), snippet) or []) if found is not None else []
        whose = stated_for_another(snippet, spans, [claim.subject])
        if found is not None and whose:
            unnamed = self._not_written(claim, snippet, f'it writes "{found.form}" only for {whose}')
            return replace(unnamed, written="", written_form="")
        named = found is not None if claim.value is not None else mentions(claim.object, snippet)
        costs: tuple[int, int, float] = (0, 0, 0.0)
        if self.template.require_object_mention and not named:
            found, costs, tried = self._named_by_model(claim, snippet)
            if found is None and claim.value is not None and names_beyond_reach(claim.value, snippet):
                judged = self._ask(claim, snippet, None, justify)
                return _with_costs(replace(judged, written=ACROSS_ALPHABETS, written_form=""), costs)
            if found is None:
                unnamed = self._not_written(claim, snippet)
                return _with_costs(replace(unnamed, answer=f"{unnamed.answer}{tried}"), costs)
            named = True
        written = found.how if found is not None else LITERAL if named else ""
        form = found.form if found is not None else claim.object if named else ""
        elsewhen, in_time = self._timing(claim, snippet) if found is not None and claim.when else ("", False)
        if elsewhen:
            return replace(self._judgement("c", 0.0, f"not asked: {elsewhen}", "", 0, 0, attempts=0),
                           written=written, written_form=form)
        if claim.when and not in_time:
            claim = replace(claim, when=())  # the text dates the value nowhere: the judge cannot be asked when
        return _with_costs(replace(self._ask(claim, snippet, found, justify), written=written, written_form=form),
                           costs)

    def _named_by_model(self, claim: Claim, snippet: str) -> tuple[Found | None, tuple[int, int, float], str]:
        """For an item value the text does not write: the words the model names as the value, where refbot shows
        that they name it (``bot.judge.naming.checked``), as found in the text; the (prompt, completion) tokens
        and seconds the naming cost; and what the model named that did not pass, for the judgement's answer."""
        if self.naming is None or claim.value is None or claim.value.datatype != "wikibase-item" \
                or self.template.mode != "yes-no":
            return None, (0, 0, 0.0), ""
        prompt_tokens = completion_tokens = 0
        answers: list[str] = []
        with self._slots:
            started = time.monotonic()
            # asked in the sentences writing a word of the value's names where there are any: the words named are
            # then looked for in the whole snippet
            excerpt = worded_sentences(claim.value, snippet) or snippet
            for part in self._fit(claim, excerpt)[:NAMING_PARTS]:
                completion = self.backend.complete(naming_messages(self.template, claim, part), NAMING_GENERATION)
                prompt_tokens += completion.prompt_tokens
                completion_tokens += completion.completion_tokens
                named = checked(completion.text, snippet, claim.value, (claim.subject,), self.naming)
                if named is not None:
                    return (Found(named.words, named.start, named.end, named.written),
                            (prompt_tokens, completion_tokens, time.monotonic() - started), "")
                answers.append(completion.text.strip())
            seconds = time.monotonic() - started
        tried = "; ".join(f'"{answer}"' for answer in answers if answer)
        return None, (prompt_tokens, completion_tokens, seconds), \
            f"; the model named {tried}, not shown to name it" if tried else ""

    @staticmethod
    def _timing(claim: Claim, snippet: str) -> tuple[str, bool]:
        """Why the snippet gives the value only for another time than the claim's, and whether it writes it beside
        a date within the claim's time (``bot.judge.periods.timing``). A date's own value is its time: not looked
        at."""
        if not claim.when or claim.value is None or claim.value.datatype == "time":
            return "", False
        spans = occurrences(_finder(claim), snippet)
        return timing(claim.when, spans, snippet) if spans else ("", False)

    def _ask(self, claim: Claim, snippet: str, found: Found | None, justify: bool) -> Judgement:
        """The model's judgement of the claim on the snippet (split to fit its context, the best part kept)."""
        claim, shown = self._shown(claim, snippet, found)
        with self._slots:  # the tokenizer too: a fast tokenizer refuses to be used by two threads at once
            started = time.monotonic()  # latency is the model's time, not the wait for a slot
            parts = self._fit(claim, shown)
            judgements = [self._judge_part(claim, part, justify) for part in parts]
        best = max(judgements, key=lambda judgement: judgement.support)
        justifying = sum(judgement.justification_s for judgement in judgements)
        return replace(best, parts=len(parts), latency_s=time.monotonic() - started - justifying,
                       justification_s=justifying,
                       excerpt=shown if shown != snippet else "",
                       prompt_tokens=sum(j.prompt_tokens for j in judgements),
                       completion_tokens=sum(j.completion_tokens for j in judgements))

    def _not_written(self, claim: Claim, snippet: str, why: str = "") -> Judgement:
        """The text does not write the value (or, ``why``, writes it for someone else only): not supported.
        Another value it gives for the property about the subject (``bot.judge.contradictions``: in a sentence
        naming the property, in a clause about the subject, not one of the page's own dates) is asked about, the
        likeliest ``CONTRADICTION_CANDIDATES`` of them."""
        refused = f"not asked: {why}" if why else \
            f'not asked: the text does not write "{claim.object}" in any form refbot knows'
        candidates = contradiction_candidates(claim, snippet) if self.template.mode == "yes-no" else []
        if not candidates:
            return self._judgement("c", 0.0, refused, "", 0, 0, attempts=0)
        asked: list[tuple[str, Judgement]] = []
        for other in candidates[:CONTRADICTION_CANDIDATES]:
            form = other.found.form
            judged = self._ask(replace(claim, object=form, value=None), snippet, None, False)
            asked.append((form, judged))
            if judged.verdict is Verdict.SUPPORTS:
                contradiction = Contradiction(form, other.sentence, judged.support)
                return replace(
                    _sum_costs(judged, [j for _, j in asked]), verdict=Verdict.CONTRADICTS, support=0.0,
                    calibrated=None, contradiction=contradiction, justification="", compared=(), excerpt="", p_yes=None,
                    answer=f'{refused}; it writes "{form}" and the model supports the claim with that value '
                           f"({judged.answer})")
        tried = "; ".join(f'"{form}": {judged.answer}' for form, judged in asked)
        return replace(_sum_costs(asked[-1][1], [j for _, j in asked]), verdict=Verdict.NOT_INFERRABLE,
                       support=0.0, calibrated=None, justification="", compared=(), excerpt="", p_yes=None,
                       answer=f"{refused}; other values it writes, not supported as the claim's: {tried}")

    def explain(self, claim: Claim, snippet: str) -> Explanation:
        """A short justification of a supporting judgement, asked after the fact: the question as ``judge``
        put it, the model's "Yes", then the template's request for the sentence that states the claim. Only
        the yes/no templates ask it separately (a generated answer is its own justification)."""
        if self.template.mode != "yes-no" or not self.template.justification:
            return Explanation("", 0, 0, 0.0)
        if claim.when and not self._timing(claim, snippet)[1]:
            claim = replace(claim, when=())  # as ``judge`` asked it
        claim, shown = self._shown(claim, snippet, _finder(claim)(snippet) if claim.value else None)
        with self._slots:
            started = time.monotonic()
            parts = self._fit(claim, shown)
            part = next((p for p in parts if mentions(claim.object, p)), parts[0])
            follow_up = self.template.messages(claim, part) + [
                {"role": "assistant", "content": "Yes"}, {"role": "user", "content": self.template.justification}]
            explained = self.backend.complete(follow_up, self.template.justification_generation)
            return Explanation(explained.text, explained.prompt_tokens, explained.completion_tokens,
                               time.monotonic() - started)

    def judge_all(self, tasks: Iterable[tuple[Key, Claim, str]], *,
                  justify: bool | None = None) -> Iterator[tuple[Key, Judgement]]:
        """Judge ``(key, claim, snippet)`` tasks with up to ``backend.max_in_flight`` requests in flight.

        Results come in completion order. A task the server refuses (HTTP 4xx, an unreadable answer) becomes
        an ``unparseable`` judgement naming the error, and the run goes on. When the backend itself is
        unavailable, no new task starts; those in flight finish and are yielded, then the error is raised.
        """
        calls = ((key, partial(self._judge_or_record, claim, snippet, justify)) for key, claim, snippet in tasks)
        return in_flight(calls, self.backend.max_in_flight, name="judge")

    def _judge_or_record(self, claim: Claim, snippet: str, justify: bool | None = None) -> Judgement:
        try:
            return self.judge(claim, snippet, justify=justify)
        except BackendUnavailable:
            raise
        except JudgeError as error:
            return self._judgement(None, 0.0, f"error: {error}", "", 0, 0, attempts=1)

    # -- internals -------------------------------------------------------------------------------------------
    def _shown(self, claim: Claim, snippet: str, found: Found | None) -> tuple[Claim, str]:
        """The claim as put to the model (a date as the text writes it: "January 14, 1943"; a name the text
        writes by its sound in another alphabet beside the label: "Paul Gustavson (Пол Густавсон)") and the part of the
        snippet shown (the sentences naming the entities, where the template focuses)."""
        if found is not None and found.how == DATE:
            claim = replace(claim, object=found.form)
        elif found is not None and _in_other_letters(found, claim.object):
            claim = replace(claim, object=f"{claim.object} ({found.form.strip(_PUNCTUATION)})")
        object_in_text = found.form if found is not None else claim.object
        return claim, focus(snippet, claim.subject, object_in_text) if self.template.focus else snippet

    def _fit(self, claim: Claim, snippet: str) -> list[str]:
        # Room for the answer; a generated answer may be asked again with the first one in the conversation.
        retries = 2 if self.template.mode == "generate" else 1
        answer = max(retries * self.template.generation.max_tokens + CHAT_OVERHEAD_TOKENS,
                     self.template.justification_generation.max_tokens if self.justify else 0)
        context = self.backend.context_tokens()
        # The longest of the questions this claim leads to (its contrasting relations are asked too).
        claims = [claim, *(as_relation(claim, relation) for relation in claim.alternatives)]
        longest = max((self.template.messages(c, "") for c in claims),
                      key=lambda messages: sum(len(m["content"]) for m in messages))
        # A token covers at least one byte, so a prompt whose bytes fit needs no tokenizer round trip.
        # Said before the question when the text is not in English (``Template.language_note``).
        note = self.template.note_for(snippet)
        fixed_bytes = sum(len(m["content"].encode("utf-8")) for m in longest) + len(note.encode("utf-8"))
        if fixed_bytes + len(snippet.encode("utf-8")) + CHAT_OVERHEAD_TOKENS + answer <= context:
            return [snippet]
        fixed = sum(self.backend.count_tokens(m["content"]) for m in longest) + CHAT_OVERHEAD_TOKENS + \
            (self.backend.count_tokens(note) if note else 0)
        budget = context - fixed - answer
        if budget <= 0:
            raise JudgeError(f"the prompt template {self.template.id!r} leaves no room for a snippet in "
                             f"{context} tokens of context", hint="use a model or server with a longer context")
        return split_to_fit(snippet, budget, self.backend.count_tokens)

    def _judge_part(self, claim: Claim, snippet: str, justify: bool) -> Judgement:
        if self.template.mode == "yes-no":
            return self._judge_by_yes_no(claim, snippet, justify)
        return self._judge_by_generation(claim, snippet)

    def _judgement(self, option: str | None, support: float, answer: str, justification: str,
                   prompt_tokens: int, completion_tokens: int, attempts: int) -> Judgement:
        verdict = Verdict(option) if option else Verdict.UNPARSEABLE
        return Judgement(verdict=verdict, support=round(support, 6), answer=answer, justification=justification,
                         model=self.model_id, template=self.template.id, prompt_tokens=prompt_tokens,
                         completion_tokens=completion_tokens, latency_s=0.0, attempts=attempts)

    def _judge_by_generation(self, claim: Claim, snippet: str) -> Judgement:
        messages = self.template.messages(claim, snippet)
        completion = self.backend.complete(messages, self.template.generation)
        option = parse_option(completion.text, LETTERS)
        prompt_tokens, completion_tokens, attempts = completion.prompt_tokens, completion.completion_tokens, 1
        answer = completion.text
        if option is None:
            retry = messages + [{"role": "assistant", "content": completion.text},
                                {"role": "user", "content": self.template.reminder}]
            second = self.backend.complete(retry, self.template.generation)
            option = parse_option(second.text, LETTERS)
            prompt_tokens += second.prompt_tokens
            completion_tokens += second.completion_tokens
            attempts = 2
            answer = f"{completion.text}\n\n[asked again] {second.text}"
        support = self.template.option_support.get(option, 0.0) if option else 0.0
        return self._judgement(option, support, answer, answer if option else "", prompt_tokens,
                               completion_tokens, attempts)

    def _judge_by_yes_no(self, claim: Claim, snippet: str, justify: bool = False) -> Judgement:
        """P(yes) that the text states the claim. With contrasting relations, also the claim's share among them
        of how well each relation's phrase continues the text's summary: a claim counts only if the model
        affirms it and the text's wording favours it over its contrasts."""
        p_yes, prompt_tokens, generated = self._p_yes(claim, snippet)
        if p_yes is None:
            return self._judgement(None, 0.0, "the model answered neither yes nor no", "", prompt_tokens,
                                   generated, attempts=2)
        retried = generated > 1
        support, answer = p_yes, f"P(yes) {p_yes:.3f}"
        share: float = 1.0
        compared: tuple[Compared, ...] = ()
        if claim.alternatives:
            compared, tokens = self._compare(claim, snippet)
            prompt_tokens += tokens
            share = compared[0].share
            # P(yes) says whether the text states the claim at all; the share, which relation it states. A small
            # model says yes to both relations, so once it says yes, the share alone ranks the claim.
            support = share if p_yes >= 0.5 else min(p_yes, share)
            answer += f"; share {share:.3f} of the summary's likelihood, against " + ", ".join(
                f"{other.label} ({other.share:.3f})" for other in compared[1:])
        # a: supports; b: undecided, the calibrated support lies in the band below the threshold; c: below it
        option, calibrated = decide(self.calibration, support,
                                    claim.value.datatype if claim.value is not None else None, self.threshold)
        justification, justifying = "", 0.0
        if option == "a" and justify:
            started = time.monotonic()
            follow_up = self.template.messages(claim, snippet) + [
                {"role": "assistant", "content": "Yes"}, {"role": "user", "content": self.template.justification}]
            explained = self.backend.complete(follow_up, self.template.justification_generation)
            justification, justifying = explained.text, time.monotonic() - started
            prompt_tokens += explained.prompt_tokens
            generated += explained.completion_tokens
        return replace(self._judgement(option, support, answer, justification, prompt_tokens, generated,
                                       attempts=2 if retried else 1), compared=compared, justification_s=justifying,
                       calibrated=calibrated, p_yes=round(p_yes, 6))

    def _compare(self, claim: Claim, snippet: str) -> tuple[tuple[Compared, ...], int]:
        """How likely the model, reading the text, finds each relation — the claim's first, then its contrasts —
        as the continuation of the text's summary: "<subject> <phrase> <object>", the phrase's and the object's
        tokens summed (the whole statement's log-probability). Two summaries are read (``summary_prefixes``): the
        text's own, "In summary, <subject>" written right after the text, and the model's, the assistant's answer
        to a request for one; a relation scores the mean of its two log-probabilities. Each view errs on its own:
        the text's continuation hesitates between "studied at" and "taught at" for a teacher's paragraph, the
        assistant's summary opens a life with "was born on" whatever date the text gives (benchmarks/README.md).
        Both begin as the question does, so the model, which has just read the system prompt and the text for
        P(yes), does not read them again; the continuations share each summary as a prefix, read once too.

        Measured on T-REx-Verify-Hard (benchmarks/README.md), the statement's log-probability separates the
        relations far better (ROC AUC 0.99) than the same averaged per token (0.55) or less its log-probability
        without the text, whole or per token (PMI: 0.51, 0.67): a phrase's extra words cost little where the
        text predicts them (averaging rewards the longer phrase's near-certain words instead), and subtracting
        a prior adds the noise of how likely the object's name is out of context. A relation with other curated
        phrasings ("taught at" beside "worked at") counts by its best one: a teacher's paragraph is not summarised
        as "worked at". Each relation's score and share are recorded, so a curator sees what was weighed."""
        relations = [claim.relation, *claim.alternatives]
        phrasings = [[summary_continuation(claim, replace(relation, phrase=phrase))
                      for phrase in (relation.phrase, *relation.other_phrases)] for relation in relations]
        continuations = tuple(continuation for group in phrasings for continuation in group)
        views = [self.backend.continuation_logprobs(prefix, continuations, rendered=rendered)
                 for prefix, rendered in self.summary_prefixes(claim, snippet)]
        by_continuation = {continuation: sum(sum(view.logprobs[index]) for view in views) / len(views)
                           for index, continuation in enumerate(continuations)}
        best = [max(group, key=lambda continuation: by_continuation[continuation]) for group in phrasings]
        scores = [by_continuation[continuation] for continuation in best]
        top = max(scores)
        weights = [math.exp(score - top) for score in scores]
        total = sum(weights)
        compared = tuple(Compared(relation.label, continuation.strip(), round(score, 4), round(weight / total, 6))
                         for relation, continuation, score, weight in zip(relations, best, scores, weights))
        return compared, sum(view.tokens for view in views)

    def summary_prefixes(self, claim: Claim, snippet: str) -> list[tuple[str, bool]]:
        """The summaries the relations continue, each with whether it is a rendered chat prompt. A backend that
        renders chat prompts gets two, both beginning with the system prompt and the text as the question does:
        the template's request for a summary cut right after the text, then "In summary, <subject>" (the text's
        own summary), and the same request answered "In summary, <subject>" (the model's). Otherwise the text
        alone, then its summary, read as a plain language model reads it."""
        rendered = self.backend.render(self.template.summary_messages(snippet)) if self.template.summary_user \
            else None
        request = self.template.summary_messages(snippet)[-1]["content"]
        at, within = (rendered.find(request), request.find(snippet)) if rendered and snippet else (-1, -1)
        if rendered is None or at < 0 or within < 0:
            return [(summary_prefix(claim, snippet), False)]
        end = at + within + len(snippet)
        answer = SUMMARY_ANSWER.format(subject=claim.subject)
        return [(rendered[:end] + "\n\n" + answer, True), (rendered + answer, True)]

    def _p_yes(self, claim: Claim, snippet: str) -> tuple[float | None, int, int]:
        """(P(yes), prompt tokens, generated tokens); P is None when the model answers neither yes nor no."""
        messages = self.template.messages(claim, snippet)
        choice = self.backend.choose(messages, ("yes", "no"))
        if choice.probabilities:
            return choice.probabilities["yes"], choice.prompt_tokens, 1
        # Neither word among the likeliest first tokens: ask once more in words, then give up.
        retry = messages[:-1] + [{"role": "user", "content": f"{messages[-1]['content']}\n{self.template.reminder}"}]
        completion = self.backend.complete(retry, Generation(max_tokens=4))
        word = re.match(r"\W*(yes|no)\b", completion.text, re.IGNORECASE)
        p_yes = None if word is None else float(word.group(1).lower() == "yes")
        return p_yes, choice.prompt_tokens + completion.prompt_tokens, 1 + completion.completion_tokens


def _with_costs(judgement: Judgement, costs: tuple[int, int, float]) -> Judgement:
    """``judgement`` with the (prompt, completion) tokens and the seconds of the questions asked before it."""
    if costs == (0, 0, 0.0):
        return judgement
    return replace(judgement, prompt_tokens=judgement.prompt_tokens + costs[0],
                   completion_tokens=judgement.completion_tokens + costs[1],
                   latency_s=judgement.latency_s + costs[2])


# What a found form may carry at its ends that is not the name ("«Блэкпул»", "(Верона)").
_PUNCTUATION = " \t\n\"'«»“”„()[]"


def _in_other_letters(found: Found, label: str) -> bool:
    """Whether the text writes the value's name by its sound in another alphabet ("Пол Густавсон" for Paul
    Gustavson): the claim then names both, as the model may not know the one for the other. A country's or a
    language's name in the text's language (CLDR's, declined) it knows: naming both there lost a true statement
    to another relation and won none (multilingual-dev, 46 rows written so)."""
    return TRANSCRIBED in found.how and found.form.strip(_PUNCTUATION).casefold() != label.casefold()


def _finder(claim: Claim) -> Callable[[str], Found | None]:
    """Where and how a text writes the claim's value (callers ask only for a claim with a value)."""
    if claim.value is None:
        return lambda text: None
    return value_finder(claim.value, country=claim.country_valued)
