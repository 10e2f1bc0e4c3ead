"""Curators' review of the references a run proposes, and the bot's writes of the approved ones.

``proposals`` reads the proposals back from a trace (pure), ``store`` keeps decisions and writes in the run ledger,
``applying`` decides what to write and records it, ``wikibase`` writes through pywikibot, ``server`` serves the
report with approve/reject buttons on loopback.
"""
