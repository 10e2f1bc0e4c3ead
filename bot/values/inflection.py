"""A name found where the text's language inflects it: "в Дании" for Дания, "Kaliforniya'da", "Gröninger". Pure.

Most languages Wikidata's sources are written in decline a name to fit its sentence: Russian writes "находится в
Дании" for Дания (Denmark), "умер в Гёттингене"; Turkish glues its case endings on, after an apostrophe for a proper
name ("Kaliforniya'da"); German, Spanish and French bend fewer names, more adjectives and plurals. A name written
whole (``bot.values.names``) misses them. Here each word of the name and of the text is reduced to its stem by
the Snowball stemmer of the text's language (snowballstemmer: the project's algorithms for some thirty languages),
and the name is found where the text's words, in order, have its words' stems. Stemmers cut an ending they know,
so a name and its declined form can keep stems of different lengths ("геттинген", "геттинг" for Гёттинген,
Гёттингене): two stems agree also when one begins the other and the shorter has at least ``PREFIX_STEM`` letters,
so that short stems ("дан" of Дания) must be equal; and a word the name capitalises must be capitalised in the
text, which keeps "данные" (data, stem "дан") from being Дания.

English is not read this way: a name English inflects at all gains an "'s" or a plural, which the fuzzy match
already takes, and the English stemmer would make "Californian" the state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

import snowballstemmer

from bot.values.found import Found

# Language (ISO 639-1) → Snowball's stemmer for it.
STEMMERS = {
    "ar": "arabic", "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek", "eo": "esperanto",
    "es": "spanish", "et": "estonian", "eu": "basque", "fa": "persian", "fi": "finnish", "fr": "french",
    "ga": "irish", "hi": "hindi", "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian",
    "lt": "lithuanian", "ne": "nepali", "nl": "dutch", "no": "norwegian", "pl": "polish", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sr": "serbian", "sv": "swedish", "ta": "tamil", "tr": "turkish",
}
# The fewest letters of the shorter of two stems that agree by one beginning the other.
PREFIX_STEM = 5
INFLECTED = "inflected"
_WORD = re.compile(r"\w+")


def inflects(language: str | None) -> bool:
    """Whether names are looked for by their stems in texts in ``language``."""
    return language in STEMMERS and language != "en"


def inflected_finder(names: Sequence[tuple[str, str]], language: str) -> Callable[[str], Found | None] | None:
    """A function finding any of ``names`` (name, how it names the value) in a text in ``language`` by the stems of
    its words; the ``Found``'s ``how`` is the name's, marked inflected. None when ``language`` is not read so."""
    if not inflects(language):
        return None
    targets = [(name, stems, how) for name, how in names if (stems := _stems(language, name))]
    if not targets:
        return None

    def find(text: str) -> Found | None:
        words = _text_words(language, text)
        for name, stems, how in targets:
            span = _run(words, stems)
            if span is not None:
                form = text[span[0]:span[1]]
                same = _WORD.findall(_folded(form)) == _WORD.findall(_folded(name))
                return Found(form, span[0], span[1], how if same else f"{how}, {INFLECTED}")
        return None
    return find


def _run(words: tuple[tuple[int, int, str, bool], ...], stems: tuple[tuple[str, bool], ...]
         ) -> tuple[int, int] | None:
    """The span of the first run of ``words`` agreeing with ``stems``: each stem, and a capital where the name
    writes one (a proper name is capitalised in every language read so: "данные", data, is not Дания)."""
    count = len(stems)
    for first in range(len(words) - count + 1):
        if all(_agree(words[first + offset][2], stem) and (words[first + offset][3] or not capital)
               for offset, (stem, capital) in enumerate(stems)):
            return words[first][0], words[first + count - 1][1]
    return None


def _agree(one: str, other: str) -> bool:
    if one == other:
        return True
    shorter, longer = sorted((one, other), key=len)
    return len(shorter) >= PREFIX_STEM and longer.startswith(shorter)


def _folded(word: str) -> str:
    # Turkish capital İ casefolds to i and a combining dot above, which no stemmer expects.
    return word.casefold().replace("i\u0307", "i")


@lru_cache(maxsize=64)
def _stemmer(language: str) -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer(STEMMERS[language])


@lru_cache(maxsize=4096)
def _stems(language: str, name: str) -> tuple[tuple[str, bool], ...]:
    """Each word's stem and whether it is capitalised."""
    return tuple((_stemmer(language).stemWord(_folded(word)), word[:1].isupper()) for word in _WORD.findall(name))


@lru_cache(maxsize=1024)
def _text_words(language: str, text: str) -> tuple[tuple[int, int, str, bool], ...]:
    stemmer = _stemmer(language)
    return tuple((match.start(), match.end(), stemmer.stemWord(_folded(match.group())), match.group()[:1].isupper())
                 for match in _WORD.finditer(text))
