"""The statement's subject as a page in another language names it: its label and aliases in that language.

A statement is selected with its labels in the run's languages (``[wikidata] languages``, English by default),
so a page in Russian about Denmark never names "Denmark": it writes "Дания", and the subject check, which admits
only paragraphs that name the subject or stand on a page about it, would read none of it. For a page whose language
(declared, or identified from its text: ``Document.language``) is not among the run's, the subject's label and
aliases in that language are looked up (``labels.rq``, once per item and language in a run) and added to the
statement's names for that page only. The value's names in the languages refbot reads already come with its other
names (``bot.selection.related``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from bot.datamodel import Statement
from bot.errors import QueryError
from bot.selection.terms import fetch_terms
from bot.values.language import primary_language

if TYPE_CHECKING:
    from bot.selection.endpoint import SparqlEndpoint


def with_names(statement: Statement, names: Sequence[str]) -> Statement:
    """Pure: the statement with ``names`` added to its subject's aliases, each once and none equal to a name it has."""
    known = {name.casefold() for name in (statement.item_label, *statement.item_aliases)}
    added = [name for name in dict.fromkeys(name.strip() for name in names)
             if name and name.casefold() not in known]
    return replace(statement, item_aliases=(*statement.item_aliases, *added)) if added else statement


class SubjectNames:
    """``with_names`` for a statement on a page in ``language``, the subject's names there looked up once per item
    and language; safe to share between threads. A page in one of the run's languages, or in none identified,
    leaves the statement as it is; so does a failing query (with a warning: the page is still read, by the names
    the statement has)."""

    def __init__(self, endpoint: SparqlEndpoint, languages: Sequence[str]) -> None:
        self.endpoint = endpoint
        self.languages = frozenset(language.lower() for language in languages)
        self._known: dict[tuple[str, str], tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def __call__(self, statement: Statement, language: str) -> Statement:
        wanted = primary_language(language)
        if wanted is None or wanted in self.languages:
            return statement
        key = (statement.item, wanted)
        with self._lock:
            names = self._known.get(key)
        if names is None:
            try:
                terms = fetch_terms(self.endpoint, [statement.item], [wanted]).get(statement.item)
            except QueryError as error:
                logging.getLogger(__name__).warning("the names of %s in %r could not be read (%s); its pages in "
                                                    "that language are read by its names in %s", statement.item,
                                                    wanted, error, ", ".join(sorted(self.languages)))
                return statement
            names = () if terms is None else ((terms.label,) if terms.language else ()) + terms.aliases
            with self._lock:
                self._known[key] = names
        return with_names(statement, names)
