"""Curators' review of the references a run proposes, and the bot's writes of the approved ones.

``proposals`` reads the proposals back from a trace (pure), ``store`` keeps decisions and writes in the run ledger,
``queue`` reads a statement's card (pure), ``shelf`` keeps each run's cards in the ledger so that the queue reads one
card and a few counts, ``applying`` decides what to write and records it, ``wikibase`` writes through pywikibot,
``server`` serves the review queue and the report with approve/reject buttons on loopback.
"""
