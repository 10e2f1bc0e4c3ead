"""Evidence against a statement in a paragraph the judge did not find support in. Pure.

A paragraph can write the statement's value and yet say the statement is false: it negates the value in the clause
that names it ("… each receive a certificate of commendation but not the European Catalysis Medal itself"), or it
ties the value to the subject by a contrasting relation the statement's property is told apart from ("she was
shortlisted for the European Catalysis Medal": *nominated for*, not *award received*). Both follow from what the
text states, not from a model: the words between the clause's start and the value are read, in a sentence about the
subject (it names the subject, or it opens with a pronoun and the sentence before it names the subject).

A paragraph that gives another value for the property (the judge's contradiction) is evidence against too; it is
found by the judge (``Judgement.contradiction``), not here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.checking.subject_check import named_in
from bot.datamodel import Relation
from bot.documents.sentences import sentence_spans
from bot.values import Finder

NEGATED = "negated"
CONTRAST = "contrast"

# Words that negate what follows them in their clause ("not only", "not until", "no other", "no surprise" do not).
_NEGATION = re.compile(r"(?:\b(?:not|never|no|nor|neither|without)\b|n't\b)(?!\s+(?:only|least|doubt|less|just|"
                       r"merely|until|till|before|other|surprise|wonder|fewer|more|sooner|longer|exception)\b)",
                       re.IGNORECASE)
# Right after the value, a negated verb of the relation: "the medal was not awarded to her".
_NEGATED_AFTER = re.compile(r"^\s*(?:was|were|is|are|has|had|have|did|does|do)\s+(?:not|never)\s+(?:been\s+)?(\w+)"
                            r"|^\s*(?:wasn't|weren't|isn't|hasn't|hadn't|didn't)\s+(?:been\s+)?(\w+)", re.IGNORECASE)
# Words after the value that lift a negation: "did not receive the medal until 2020".
_LIFTED = re.compile(r"^[^.;:!?]*?\b(?:until|till|before|but\s+(?:later|eventually|then))\b", re.IGNORECASE)
# Where a clause starts: punctuation, and the conjunctions that start another clause.
_CLAUSE_START = re.compile(r"[.;:!?()\[\]—–,]|\b(?:and|but|while|whereas|although|though|yet|however|after|before|"
                           r"when|which|who)\b", re.IGNORECASE)
WORDS_BEFORE = 8  # how far back in its clause a negation or a contrasting phrase is looked for
_PRONOUN = re.compile(r"^\W*(?:she|he|they|it|her|his|their|its)\b", re.IGNORECASE)
# Words of a relation's phrase that say nothing of which relation it is, and the only other words that may stand
# between a negation and the value it negates ("not the", "did not receive the", "never formally awarded the").
_GLUE = frozenset("a an the of for to in on at by with from as is was were be been being has had have did does "
                  "do it its their her his itself ever yet actually formally officially any".split())
STEM = 7  # "nominated" / "nomination", "shortlisted" / "shortlist": words compared by their first letters


@dataclass(frozen=True)
class Against:
    """Why a paragraph is evidence against the statement: ``kind`` (negated, contrast), the words that say so
    (``cue``: "not", "was nominated for"), and the sentence."""

    kind: str
    cue: str
    sentence: str

    @property
    def reason(self) -> str:
        if self.kind == NEGATED:
            return f"the value is negated (“{self.cue}”)"
        return f"it states another relation: {self.cue}"


def evidence_against(text: str, find_value: Finder, subject_names: Sequence[str], relation: Relation,
                     contrasts: Sequence[Relation]) -> Against | None:
    """The first sentence of ``text`` about the subject that writes the value (``find_value``, a
    ``bot.values`` finder) and negates it or states it with a contrasting relation; None when none does.

    A negation counts when nothing but glue and the words of the claimed ``relation`` stand between it and the value
    ("… but not the European Catalysis Medal", "did not receive the …"), or when the value is followed by a negated
    verb of the relation ("the medal was not awarded to her"); "She never left Brno" does not deny a birthplace, and
    "did not receive the medal until 2020" does not deny the medal."""
    spans = sentence_spans(text) or [(0, len(text))]
    about_previous = False
    cues = _contrast_cues(contrasts)
    own = _stems(relation)
    for start, end in spans:
        sentence = text[start:end]
        about = bool(named_in(sentence, subject_names)[0]) or bool(about_previous and _PRONOUN.match(sentence))
        about_previous = bool(named_in(sentence, subject_names)[0]) or (about_previous and about)
        if not about:
            continue
        found = find_value(sentence)
        if found is None:
            continue
        before = _clause_before(sentence[:found.start])
        rest = sentence[found.end:]
        negation = _negating(before, own)
        after = _NEGATED_AFTER.search(rest)
        if negation and not _LIFTED.search(rest):
            return Against(NEGATED, negation, " ".join(sentence.split()))
        if after is not None and _is_stem_of(after.group(1) or after.group(2) or "", own):
            return Against(NEGATED, " ".join(after.group(0).split()), " ".join(sentence.split()))
        for stems, label in cues:
            words = [word.casefold() for word in re.findall(r"\w+", before)]
            if any(word[:STEM] in stems for word in words):
                return Against(CONTRAST, label, " ".join(sentence.split()))
    return None


def _negating(before: str, own: frozenset[str]) -> str:
    """The negation (as written: "not", "didn't") in ``before`` that reaches the value after it: only glue and the
    relation's own words between them; "" when there is none."""
    for negation in reversed(list(_NEGATION.finditer(before))):
        between = re.findall(r"[\w']+", before[negation.end():])
        if all(word.casefold() in _GLUE or _is_stem_of(word, own) for word in between):
            return _word_at(before, negation.start(), negation.end())
    return ""


def _stems(relation: Relation) -> frozenset[str]:
    """The telling words of a relation's label and phrases, cut to ``STEM`` letters."""
    words = re.findall(r"\w+", " ".join((relation.label, relation.phrase, *relation.other_phrases)))
    return frozenset(word.casefold()[:STEM] for word in words if word.casefold() not in _GLUE and len(word) >= 4)


def _is_stem_of(word: str, stems: frozenset[str]) -> bool:
    """Whether ``word`` is a form of one of ``stems`` ("awarded" of "award", "receive" of "received")."""
    word = word.casefold()[:STEM]
    return len(word) >= 4 and any(word.startswith(stem) or stem.startswith(word) for stem in stems)


def _word_at(text: str, start: int, end: int) -> str:
    """The whole words ``text[start:end]`` lies in ("didn't" for "n't")."""
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return " ".join(text[start:end].split())


def _clause_before(text: str) -> str:
    """The last ``WORDS_BEFORE`` words of ``text`` after the last clause boundary in it."""
    boundaries = list(_CLAUSE_START.finditer(text))
    clause = text[boundaries[-1].end():] if boundaries else text
    if boundaries and boundaries[-1].group(0).casefold() in ("but", "yet", "however"):
        clause = text[boundaries[-1].end():]  # "but not the medal": the negation follows the conjunction
    words = clause.split()
    return " ".join(words[-WORDS_BEFORE:])


def _contrast_cues(contrasts: Sequence[Relation]) -> list[tuple[frozenset[str], str]]:
    """For each contrasting relation, the stems of its phrases' telling words, and how to name it."""
    cues = []
    for relation in contrasts:
        stems: set[str] = set()
        for phrase in (relation.phrase or relation.label, *relation.other_phrases):
            stems.update(word.casefold()[:STEM] for word in re.findall(r"\w+", phrase)
                         if word.casefold() not in _GLUE and len(word) >= 4)
        if stems:
            cues.append((frozenset(stems), relation.label))
    return cues
