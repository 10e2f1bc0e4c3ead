"""Verifying the references statements already have (`refbot verify`). Modules: ``citations`` (the page each
reference names), ``records`` (what verifying one found), ``reference`` (one reference read and judged),
``selection`` (the referenced statements of a worklist, from SPARQL), ``run`` (a resumable run over a ledger),
``export`` (one record per reference, as JSON Lines or RDF).
"""
