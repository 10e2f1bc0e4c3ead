"""Corroboration from linked knowledge graphs: an item's authority records (GND, BnF, VIAF, … — any identifier
whose property has a formatter URI for RDF resource, P1921) read as RDF and weighed against a statement, before any
web search (GPT-LODS's cascade, FactGenius's validated relation picks).

Modules: ``identifiers`` (the properties and an item's identifiers, from the endpoint), ``records`` (fetching and
parsing a record), ``facts`` (its subject's triples, verbalised), ``matching`` (values compared by datatype, the
cascade), ``picking`` (the model's relation picks, validated), ``stage`` (one statement). ``bot.wiring``
builds them from the options.
"""

from __future__ import annotations

from bot.corroboration.stage import Corroboration, Corroborator, Finding, RecordCheck

__all__ = ["Corroboration", "Corroborator", "Finding", "RecordCheck"]
