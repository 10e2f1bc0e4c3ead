"""Which language a text is written in. Pure (a fixed model, no state).

A page declares its language (``<html lang="de">``, ``Content-Language``); a paragraph, a passage in a data set or
a snippet given to ``refbot judge`` does not. ``text_language`` takes the declared language when there is one and
otherwise asks py3langid (the identifier trafilatura uses), restricted to the languages refbot reads words in:
those Snowball has a stemmer for (``bot.values.inflection``) and those CLDR names months in for dates. Over that
set a short English sentence is not taken for Nigerian Pidgin or Hausa, as the unrestricted model takes
"Barack Obama". An identification below ``CONFIDENCE`` gives None: the caller reads the text as it would read
English.
"""

from __future__ import annotations

import re
from functools import lru_cache

from py3langid.langid import MODEL_FILE, LanguageIdentifier

# Languages a text is identified among: Snowball's stemmers' languages and a few more Wikidata's sources are
# often written in (a text in another language is identified as the closest of these, and its words are then read
# without a stemmer only if the identification is confident).
LANGUAGES = ("ar", "ca", "cs", "da", "de", "el", "en", "eo", "es", "et", "eu", "fa", "fi", "fr", "ga", "hi", "hu",
             "hy", "id", "it", "ja", "ko", "lt", "no", "ne", "nl", "pl", "pt", "ro", "ru", "sk", "sl", "sr", "sv",
             "ta", "tr", "uk", "zh", "bg", "hr", "he", "vi")
# The normalised probability below which a text's language is left unknown (on short sentences in de, fr, es, tr,
# ru and en, 0.5 identifies 98 % of them and mistakes 3 of 519; 0.8 leaves a quarter of the Russian unknown).
CONFIDENCE = 0.5
# Letters a text needs for its language to be identified from it.
MIN_LETTERS = 12
_PRIMARY = re.compile(r"^\s*([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]+)*\s*$")


def primary_language(declared: str | None) -> str | None:
    """The primary subtag of a declared language ("de-AT" → "de", "pt_BR" → "pt"), lowercase; None when
    ``declared`` is empty or no language tag."""
    match = _PRIMARY.match(declared or "")
    if not match:
        return None
    code = match.group(1).lower()
    return {"nb": "no", "nn": "no", "iw": "he", "in": "id"}.get(code, code)


def text_language(text: str, declared: str | None = None) -> str | None:
    """The language ``text`` is written in: the ``declared`` one's primary subtag when it gives one, else the
    language identified from the text, or None when the text is too short or the identification unsure."""
    return primary_language(declared) or _identified(text)


@lru_cache(maxsize=4096)
def _identified(text: str) -> str | None:
    if sum(char.isalpha() for char in text[:2000]) < MIN_LETTERS:
        return None
    language, probability = _identifier().classify(text[:2000])
    return str(language) if probability >= CONFIDENCE else None


@lru_cache(maxsize=1)
def _identifier() -> LanguageIdentifier:
    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    return identifier
