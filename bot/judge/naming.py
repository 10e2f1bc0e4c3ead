"""An item named another way, shown and checked (FactGenius' two steps). Pure.

A text often states an item value without writing its label: "the violist" for the instrument *viola*, "murdered"
for *homicide*, "attorney" for *lawyer*. Where the text does not write the value in any form refbot knows
(``bot.values``), the judge asks the model which words of the text state the subject's property
(``bot.judge.prompts.naming_messages``), and accepts them only where refbot can show that they name the value:

1. they are in the text, verbatim (``verbatim``): a model's paraphrase or its own knowledge is never a name;
2. they do not name the subject (a model that copies the subject's name has named no value);
3. they name the value by something refbot can show (``shown``): one of the value's names (its label, aliases and
   the names Wikidata links to it, ``Value.related``: labels in other languages, more specific or more general
   items), a word of the same stem as a word of such a name (``same_stem``), or, where an embedding model is wired,
   an embedding similarity to the value's label or an alias of at least ``Naming.threshold``.

Only then is the yes/no judge asked, with the claim as usual; the judgement records the words
(``Judgement.written_form``) and how they were checked (``Judgement.written``), which the trace and the review card
show. Dates, amounts and strings are never named this way: a text that does not write them does not state them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.datamodel import Value
from bot.documents.sentences import sentence_spans
from bot.values.names import mentions

Embed = Callable[[list[str]], list[list[float]]]

# How ``Judgement.written`` begins for a value the model named: "named by the model: same stem as “viola”".
NAMED = "named by the model"
# Words of an answer at most: the words that state a value are a name or a short phrase, not a sentence.
MAX_WORDS = 6
# Two words share a stem when they begin with the same STEM_LETTERS letters or more, which cover at least
# STEM_SHARE of the shorter word, and neither goes on for more than STEM_ENDING letters after them (an ending:
# "viol-ist" / "viol-a", "murder-ed" / "murder", "politic-ian" / "politic-s"). Three letters would join "art" and
# "artery"; a long ending, "organ" and "organization".
STEM_LETTERS = 4
STEM_SHARE = 0.75
STEM_ENDING = 4
# Cosine similarity of all-MiniLM-L6-v2's embeddings from which the words count as naming the value, chosen on the
# dev sets (benchmarks/README.md, "Items named another way"): above every similarity of words a model named for
# another thing (a national federation for FIFA 0.55, "Urban infrastructure" for urban planning 0.64), below
# those of words naming the value ("Representative" 0.81, "Christian Scientist" 0.85, "murdered" for homicide 0.73).
EMBEDDING_THRESHOLD = 0.7
# What an answer naming nothing says.
NONE_ANSWERS = frozenset({"none", "nothing", "no", "n/a", ""})

_WORD = re.compile(r"[^\W\d_]+")
_NUMBER = re.compile(r"\d+")
_PARTS = re.compile(r"\s*(?:[,;\n]|\band\b|\bor\b)\s*")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_QUOTES = "\"'“”‘’«»`*"


@dataclass(frozen=True)
class Naming:
    """How the words a model names are checked: ``embed`` the embedding model (None: by names and stems only),
    ``threshold`` the similarity from which its embeddings say the words name the value."""

    embed: Embed | None = None
    threshold: float = EMBEDDING_THRESHOLD


@dataclass(frozen=True)
class Named:
    """Words of the text that name the value, where they are, and how refbot showed it ("same stem as “viola”")."""

    words: str
    start: int
    end: int
    how: str

    @property
    def written(self) -> str:
        return f"{NAMED}: {self.how}"


def answered(answer: str) -> list[str]:
    """The words an answer names, each candidate alone ("the violist and composer" gives "the violist and
    composer", "the violist", "composer"); none for an answer naming nothing."""
    first = answer.strip().splitlines()[0] if answer.strip() else ""
    whole = _unquoted(re.sub(r"^(?:answer|words?)\s*:\s*", "", first, flags=re.IGNORECASE))
    if whole.casefold().rstrip(".") in NONE_ANSWERS:
        return []
    # 'The words are "the violist".': the quoted words first.
    quoted = [_unquoted(straight or curly) for straight, curly in _QUOTED.findall(first)]
    parts = [_unquoted(part) for part in _PARTS.split(whole)]
    return list(dict.fromkeys(words for words in (*quoted, whole, *parts)
                              if words and len(words.split()) <= MAX_WORDS))


def verbatim(words: str, text: str) -> tuple[int, int] | None:
    """Where the text writes ``words`` as they are (case and spacing aside), as whole words; None where it does
    not."""
    pattern = r"\s+".join(re.escape(word) for word in words.split())
    match = re.search(rf"(?<!\w){pattern}(?!\w)", text, re.IGNORECASE) if pattern else None
    return (match.start(), match.end()) if match else None


def same_stem(one: str, other: str) -> bool:
    """Whether two words are forms of one stem ("violist" and "viola", "murdered" and "murder"): see STEM_LETTERS."""
    one, other = one.casefold(), other.casefold()
    shared = 0
    for a, b in zip(one, other):
        if a != b:
            break
        shared += 1
    shorter = min(len(one), len(other))
    return (shared >= STEM_LETTERS and shared >= STEM_SHARE * shorter
            and len(one) - shared <= STEM_ENDING and len(other) - shared <= STEM_ENDING)


def value_names(value: Value) -> list[tuple[str, str]]:
    """The value's names with how each is the value's: its label, aliases, the names Wikidata links to it."""
    return [(name, how) for name, how in ((value.text, "label"), *((alias, "alias") for alias in value.aliases),
                                          *value.related) if name]


def shown(words: str, value: Value, naming: Naming) -> str:
    """How ``words`` name ``value`` ("alias “attorney”", "same stem as “viola”", "embedding similarity 0.83 to
    “lawyer”"); "" where refbot cannot show that they do."""
    names = value_names(value)
    folded = " ".join(words.casefold().split())  # the words hold a whole name, not a word of one
    for name, how in names:
        if " ".join(name.casefold().split()) == folded or verbatim(name, words) is not None:
            return f"{how} “{name}”"
    said = _WORD.findall(words)
    numbers = set(_NUMBER.findall(words))
    for name, how in names:
        # Every word of the name that carries meaning ("association football": both) is said, in some form, and
        # every number as it is ("Member of the 1558 Parliament" is not any parliament's member).
        needed = [word for word in _WORD.findall(name) if len(word) >= STEM_LETTERS] or _WORD.findall(name)
        if needed and set(_NUMBER.findall(name)) <= numbers \
                and all(any(same_stem(word, given) for given in said) for word in needed):
            return f"same stem as “{name}”" if how == "label" else f"same stem as “{name}” ({how})"
    if naming.embed is None:
        return ""
    compared = [name for name, how in names if how in ("label", "alias")]
    if not compared:
        return ""
    vectors = naming.embed([words, *compared])
    similarity, name = max((_cosine(vectors[0], vector), name) for vector, name in zip(vectors[1:], compared))
    return f"embedding similarity {similarity:.2f} to “{name}”" if similarity >= naming.threshold else ""


def in_words(value: Value, text: str) -> bool:
    """Whether ``text`` writes a word of one of the value's names in some form (``same_stem``: "Treasury" of
    "Department of the Treasury", "Parliament" of "Member of the 1399 Parliament"), a word carrying meaning
    (``STEM_LETTERS`` letters or more), and every number of that name as it is ("1399") — where words the model
    names could be shown to name the value (``shown``). Cheap: no model."""
    said = {word.casefold() for word in _WORD.findall(text) if len(word) >= STEM_LETTERS}
    numbers = set(_NUMBER.findall(text))
    return any(set(_NUMBER.findall(name)) <= numbers and any(
        same_stem(word, given) for word in _words_of(name) for given in said) for name, _ in value_names(value))


def worded_sentences(value: Value, text: str) -> str:
    """The sentences of ``text`` that write a word of one of the value's names in some form (:func:`in_words`),
    joined by " … " in their order; "" where none does. What the model is asked to name the value in: the words it
    names are then looked for in the whole text, and a short excerpt costs a fraction of the whole."""
    sentences = [text[start:end].strip() for start, end in sentence_spans(text)]
    return " … ".join(sentence for sentence in sentences if sentence and in_words(value, sentence))


def _words_of(name: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(name) if len(word) >= STEM_LETTERS}


def checked(answer: str, text: str, value: Value, subject_names: Sequence[str], naming: Naming) -> Named | None:
    """The first words of the model's ``answer`` that the text writes verbatim, that do not name the subject and
    that refbot shows to name the value; None where no words pass."""
    for words in answered(answer):
        span = verbatim(words, text)
        if span is None or any(mentions(name, words) for name in subject_names if name):
            continue
        how = shown(text[span[0]:span[1]], value, naming)
        if how:
            return Named(text[span[0]:span[1]], span[0], span[1], how)
    return None


def _unquoted(words: str) -> str:
    return words.strip().strip(_QUOTES).strip().rstrip(".").strip(_QUOTES).strip()


def _cosine(one: Sequence[float], other: Sequence[float]) -> float:
    dot = sum(a * b for a, b in zip(one, other))
    norm = math.sqrt(sum(a * a for a in one)) * math.sqrt(sum(b * b for b in other))
    return dot / norm if norm else 0.0
