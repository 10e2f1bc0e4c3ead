"""A name in Latin letters found where a text in another alphabet writes it by its sound: "Гэри Кон" for Gary
Cohn, "Гёттингене" for Göttingen, "ФК «Блэкпул»" for A.F.C. Blackpool. Pure.

A Russian, Greek, Armenian or Georgian text writes a foreign person's, place's or club's name as it sounds, in its
own letters: Wikidata's English label is never written there, and without an endpoint to ask for the label in the
page's language the value could not be found. The transcription follows the sounds, so both the name and the
text's words are brought to one key (``sound_key``):

1. the text's letters are read in Latin letters by anyascii (a maintained table for every script: "Сэндидж" →
   "Sendidzh"), the name's letters folded the same way ("Göttingen" → "Gottingen");
2. spellings of one sound are made one letter, in both: "dzh" and "dj" are "j", and so is a name's "g" before e,
   i or y where it is read softly (Sandage / Sendidzh; Göttingen's is hard: both readings are tried), as a "c"
   before them is "s" (Vincent / Vinsent); "sh", "sch", "zh", "ts", "z" and the hiss of "x" are "s"; "kh" and "h"
   vanish (Manhattan / Mankhetten); "c", "ck", "q" are "k"; "ph", "w" and "v" are "f" (Wiener / Viner), but a "w"
   that ends a vowel is part of it (Town / Таун); "th" is "t";
3. vowels go (a transcription keeps consonants and guesses vowels: Austin / Ostin, Blackpool / Blekpul), a word's
   first vowel leaving a mark, and doubled letters are written once.

A name is found where consecutive words of the text have its words' keys, each capitalised where the name's is
(a proper name is capitalised in these alphabets too), in order; one capitalised word may stand between two of
them, a middle name the label leaves out ("Аллан Рекс Сэндидж" for Allan Sandage). A text's word may go on for
``ENDING`` more consonants than the name's, for the endings these languages decline a name with (Гёттингене);
a name's word with a key of fewer than ``SHORT_KEY`` letters must be equal to the text's, and a name of one such
word is not looked for at all (Rome's "rm" would be any "Рома"). Words of one letter (the initials of "A.F.C.") are
skipped, and a place's label with its region after a comma ("Austin, Texas") is also looked for by its first part.
Letters of scripts that write words rather than sounds (Chinese characters) are not read this way.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from functools import lru_cache

from anyascii import anyascii

from bot.values.found import Found

TRANSCRIBED = "transcribed"
# Consonants a text's word may have after the name's word's key (a declension's ending: "-ом", "-ов", "-ский").
ENDING = 2
# Keys shorter than this are equal or nothing, and a one-word name with such a key is not looked for.
SHORT_KEY = 3
# The alphabets whose words are read by their sound: Cyrillic, Greek, Armenian, Georgian.
_ALPHABETS = ((0x0370, 0x03FF), (0x1F00, 0x1FFF), (0x0400, 0x052F), (0x0530, 0x058F), (0x10A0, 0x10FF))
_WORD = re.compile(r"[^\W\d_]+")
# One sound's spellings, in the order they are replaced (longer first).
_SPELLINGS = (("shch", "s"), ("dzh", "j"), ("sch", "s"), ("tsch", "s"), ("dj", "j"), ("sh", "s"), ("zh", "s"),
              ("ch", "c"), ("kh", "h"), ("ck", "k"), ("ph", "f"), ("th", "t"), ("ts", "s"), ("tz", "s"),
              ("x", "ks"), ("q", "k"), ("w", "f"), ("v", "f"), ("z", "s"))
_SOFT_G = re.compile(r"g(?=[eiy])")
_SOFT_C = re.compile(r"c(?=[eiy])")
_VOWELS = re.compile(r"[aeiouy]")
_VOWEL_W = re.compile(r"w(?![aeiouy])")
_DOUBLED = re.compile(r"(.)\1+")


def in_alphabet(char: str) -> bool:
    """Whether a letter is of an alphabet whose words are read by their sound here."""
    code = ord(char)
    return any(low <= code <= high for low, high in _ALPHABETS)


def in_another_alphabet(text: str) -> bool:
    """Whether most of a text's letters are of an alphabet read by sound here (a Russian or Greek paragraph with a
    few Latin names in it is; an English one quoting a Russian title is not)."""
    letters = [char for char in text if char.isalpha()]
    return bool(letters) and 2 * sum(in_alphabet(char) for char in letters) > len(letters)


@lru_cache(maxsize=8192)
def sound_key(word: str, soft: bool = False) -> str:
    """The word's consonants as they sound, the same for a name and its transcription ("Cohn" and "Кон": "kn";
    "Austin" and "Остин": "·stn"); "" for a word with no letters. ``soft``: a "g" or "c" before e, i or y is read
    as English and French read it ("j", "s"); else as German and Italian read a "g" ("Göttingen": "gtngn"), as
    the transcribed text reads every letter it has."""
    latin = "".join(char for char in unicodedata.normalize("NFKD", anyascii(word))
                    if char.isascii() and char.isalpha()).casefold()
    if not latin:
        return ""
    if soft:
        latin = _SOFT_C.sub("s", _SOFT_G.sub("j", latin))
    latin = _VOWEL_W.sub("", latin)
    for spelling, sound in _SPELLINGS:
        latin = latin.replace(spelling, sound)
    mark = "·" if latin[0] in "aeiouy" else ""
    consonants = _VOWELS.sub("", latin).replace("h", "").replace("c", "k")
    return mark + _DOUBLED.sub(r"\1", consonants)


def transcribed_finder(names: Sequence[tuple[str, str]]) -> Callable[[str], Found | None] | None:
    """A function finding any of ``names`` (a name in Latin letters, how it names the value) in a text written in
    an alphabet read by sound; the ``Found``'s ``how`` is the name's, marked transcribed. None when no name can be
    looked for so."""
    targets = [(how, keys) for name, how in names for keys in _name_keys(name)]
    if not targets:
        return None

    def find(text: str) -> Found | None:
        if not any(in_alphabet(char) for char in text):
            return None
        words = _text_words(text)
        for how, keys in targets:
            span = _run(words, keys)
            if span is not None:
                return Found(text[span[0]:span[1]], span[0], span[1], f"{how}, {TRANSCRIBED}")
        return None
    return find


def _name_keys(name: str) -> list[tuple[tuple[str, bool], ...]]:
    """The keys a name is looked for by: its words' (key, capitalised), and its first part's where a comma adds a
    region ("Austin, Texas"); none for a name already in an alphabet read by sound, or too short to tell."""
    if any(in_alphabet(char) for char in name):
        return []
    parts = [name, name.split(",")[0]] if "," in name else [name]
    found = []
    for part in parts:
        for soft in (False, True):
            keys = tuple((key, word[:1].isupper()) for word in _WORD.findall(part)
                         if len(word) > 1 and (key := sound_key(word, soft)))
            if not keys or (len(keys) == 1 and len(keys[0][0].lstrip("·")) < SHORT_KEY):
                continue
            if keys not in found:
                found.append(keys)
    return found


@lru_cache(maxsize=1024)
def _text_words(text: str) -> tuple[tuple[int, int, str, bool], ...]:
    return tuple((match.start(), match.end(), sound_key(match.group()), match.group()[:1].isupper())
                 for match in _WORD.finditer(text) if any(in_alphabet(char) for char in match.group()))


def _run(words: tuple[tuple[int, int, str, bool], ...], keys: tuple[tuple[str, bool], ...]) -> tuple[int, int] | None:
    """The span of the first words agreeing with ``keys`` in order, consecutive but for one capitalised word
    between two of them (a middle name the label leaves out: "Аллан Рекс Сэндидж" for Allan Sandage)."""
    for first in range(len(words)):
        at = first
        for offset, (key, capital) in enumerate(keys):
            if offset and at < len(words) and not _agrees(words[at], key, capital) and words[at][3]:
                at += 1  # a middle name
            if at >= len(words) or not _agrees(words[at], key, capital):
                break
            at += 1
        else:
            return words[first][0], words[at - 1][1]
    return None


def _agrees(word: tuple[int, int, str, bool], key: str, capital: bool) -> bool:
    return _agree(word[2], key) and (word[3] or not capital)


def _agree(written: str, key: str) -> bool:
    if written == key:
        return True
    return len(key.lstrip("·")) >= SHORT_KEY and written.startswith(key) and len(written) - len(key) <= ENDING
