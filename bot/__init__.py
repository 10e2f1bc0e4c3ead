"""refbot: finds grounding documents for unsourced Wikidata statements and proposes references."""

__version__ = "0.1.0"
