"""Worklists asked in plain words (`refbot select --ask`): a model writes SPARQL from the fragments of the graph a
question touches, and nothing it writes reaches an endpoint before ``bot.asking.safety`` has checked it."""
