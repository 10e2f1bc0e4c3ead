"""Which of the other values a text writes are findings against a statement: another value given for the
statement's property, about its subject. Pure.

A page that does not write the statement's value may give another one ("Marta Novotná was born on 3 March 1921"
against a statement of 1912), and the judge asks the model about the claim with that value. Most other values on a
page are no such finding, and each false one is a correct statement told to curators as wrong. Another value is a
candidate only when:

- it is not one of the page's own dates (``bot.values.own_dates``: an obituary's dateline is days after the death
  it reports; "Retrieved …", a citation's ``archivedate = …``);
- its sentence names the property (``bot.judge.focus.ranked_others``: "born", an infobox's "Death.", a life span
  after the subject's name). An identifier of a distinctive shape — long, of digits and other characters
  ("0-306-40615-3", "nm0000123") — is one by its shape alone; a short or all-digit one ("1687", "113230702") could
  be any number on the page, and needs its sentence to name it too;
- its clause is about the subject, not about someone beside it: not in a relative clause on someone else ("his
  friend Karel Novák, who died in a fall in 1960"), not in a clause whose subject is a relative of the subject or
  of anyone ("Smith's first wife … died in 1950", "after her husband's death in 1950", "whose father died in
  1921"), and, for a person, not in a clause opened by another person's name ("Jane Smith died in 1950" on John
  Smith's page: another of the family);
- the text names the subject at all, and the property's values do not change over time (another year's revenue
  denies nothing).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from bot.datamodel import Claim, Value
from bot.documents.sentences import sentence_spans
from bot.judge.focus import Other, names_subject, property_words, ranked_others
from bot.values import STRING, other_names, other_values
from bot.values.names import mentions
from bot.values.others import capitalised_runs

# Other values looked at per text, at most: more than the judge asks about, since some are then left out.
LOOKED_AT = 6
# An identifier this long, holding digits and other characters, is another identifier by its shape alone.
DISTINCTIVE_LENGTH = 8

# Nouns that name someone by their tie to another person: a clause whose subject is one is about that person.
_TIES = """wife husband spouse widow widower fiancée fiancé partner companion lover boyfriend girlfriend son daughter
child children stepson stepdaughter father mother parent parents stepfather stepmother brother sister sibling twin
half-brother half-sister grandfather grandmother grandson granddaughter grandchild grandparents uncle aunt nephew
niece cousin father-in-law mother-in-law son-in-law daughter-in-law brother-in-law sister-in-law friend teacher
mentor tutor pupil student disciple apprentice colleague associate rival successor predecessor assistant patron
employer employee master servant""".split()
_TIE = "(?:" + "|".join(sorted(map(re.escape, _TIES), key=len, reverse=True)) + ")(?:s|es|ren)?"
_OWNER = r"(?:(?i:his|her|their|its|my|our|your|whose)|[\w.-]+['’]s?)"
# "his first wife", "Smith's late husband", "whose father", "the widow of", "a close friend of".
_TIED = re.compile(rf"(?<![\w'’]){_OWNER}\s+(?:[\w-]+\s+){{0,2}}?{_TIE}(?![\w-])"
                   rf"|(?<![\w'’])(?i:the|a|an)\s+(?:[\w-]+\s+){{0,2}}?{_TIE}\s+of(?!\w)")
# Whom a tie "of" names: a name ("the mother of Eva Hostilová") or a pronoun ("the brother of her"); the words after
# them are the clause's own, where the subject named is an apposition ("The daughter of Karel Novák, Eva Hostilová,")
# and not naming the subject leaves the clause to the relative.
_TIE_OWNER = re.compile(r"\s*(?:(?:[A-Z][\w.'’-]*\s*)+|(?i:him|her|them|his|hers|theirs)\b)")
# The object of a birth given is who was born: "gave birth to her daughter Jana on …", "giving birth to a son".
_BIRTH_GIVEN = re.compile(rf"(?<!\w)(?i:birth)\s+to\s+(?:[\w-]+\s+){{0,2}}?{_TIE}(?![\w-])")
# The given names right before a possessive's family name ("Eva " before "Hostilová's brother").
_OWNER_NAME = re.compile(r"(?:[A-Z][\w.'’-]*\s+)*\Z")
# Where a clause starts: a stop, a bracket or a dash, a comma before a conjunction or a relative pronoun, and the
# words that open a subordinate clause ("after her husband's death in 1950").
_CLAUSE_START = re.compile(r"[;:()\[\]—–\n]|,(?=\s+(?:and|but|who|whose|which)\b)"
                           r"|\b(?i:while|whereas|although|though|when|after|before|until)\b")
_RELATIVE = re.compile(r"((?:[\w'’.-]+\s+){0,3}[\w'’.-]+)(?:,\s+|\s+(?=who))(who|whose|which)\s")
_CLAUSE_END = re.compile(r"[,;:!?)]|\.\s")
_PRONOUN = re.compile(r"(?<!\w)(?i:he|she|they)(?!\w)")
# A relative clause closed before the value: an aside, after which the main clause goes on ("John Smith, whose
# father died in 1921, was born in 1900").
_ASIDE = re.compile(r",\s+(?:who|whose|which)\b[^,;()]*,")
# Capitalised words that may stand before a family name without naming someone else, and that open sentences.
_NOT_GIVEN_NAMES = frozenset("""mr mrs ms miss mx dr prof professor sir dame lady lord madame monsieur herr frau
    saint st the a an this that in on at by for from with and but or as when while after before since of to
    according during following later then""".split())
# Words opening a clause before the value that leave its subject to what follows: "In 1950, his wife died".
_OPENING = re.compile(r"\s*(?:[\w'’-]+\s+){0,2}\Z")


def candidates(claim: Claim, snippet: str) -> list[Other]:
    """The other values ``snippet`` gives for the claim's property about its subject, likeliest first (in
    ``bot.judge.focus.ranked_others``' order: named by the words near them, then dates at the value's precision,
    then in text order)."""
    if claim.value is None or claim.time_varying or not names_subject(claim.subject, snippet):
        return []
    words = property_words(claim)
    others = other_values(claim.value, snippet, LOOKED_AT, property_words=words)
    if not others and claim.single_valued:
        others = other_names(claim.value, snippet, limit=LOOKED_AT, exclude=(claim.subject,))
    by_shape = distinctive(claim.value)
    return [other for other in ranked_others(claim, snippet, others)
            if (other.named or by_shape and other.found.how == STRING)
            and not stated_for(other.sentence, other.found.start - other.start, other.found.end - other.start,
                               claim.subject)]


def stated_for_another(text: str, spans: Iterable[tuple[int, int]], names: Sequence[str]) -> str:
    """The name of someone (or something) else ``text`` states a value for, or "": every place it writes the value
    (``spans``) is inside a relative clause on another name or on a tie ("Back in Prague he and Vlček, who studied
    at the Czech Technical University, founded a practice" gives the university for Vlček, not for Beneš; "his
    partner, who …"; "…, which" only when the subject is not a person), or in a clause about someone else
    (:func:`stated_for`: "Eva's cousin Jan was born on 15 March 1970"). ``names``: the subject's, its label first.
    The one rule both for which paragraphs are about the subject (``bot.checking.judging``) and for whether the
    judge reads a text's value as the subject's (``bot.judge.engine``)."""
    names = [name for name in names if name]
    if not names:
        return ""
    person = bool(_family_name(names[0]))
    sentences = sentence_spans(text)
    other = ""
    for start, end in spans:
        whose = _relative_antecedent(text[:start], names, person)
        if whose is None:
            first, last = next(((s, e) for s, e in sentences if s <= start < e), (0, len(text)))
            whose = stated_for(text[first:last], start - first, end - first, names[0], by_name_alone=False)
        if not whose:
            return ""
        other = other or whose
    return other


# ", who studied at …": a relative clause set off by a comma, and the words before it, whose capitalised tail names
# its antecedent; it may span a sentence's clauses, not its end.
_TIE_AHEAD = re.compile(rf"(?:[\w-]+\s+){{0,2}}?{_TIE}(?![\w-])", re.IGNORECASE)
_SET_OFF = re.compile(r"((?:[\w'’.-]+\s+){0,3}[\w'’.-]+),\s+(who|whose|which)\s")


def _relative_antecedent(before: str, names: Sequence[str], person: bool) -> str | None:
    """The name a relative clause ending ``before`` is attached to, when it is not the subject's; "" when it is
    the subject's or the clause is about another kind of thing than the subject ("which" on a person's page,
    "who" on a thing's); None when ``before`` ends in no relative clause or in one whose antecedent is no name
    ("his partner, who …": :func:`stated_for` reads the clause's words)."""
    clause = None
    for clause in _SET_OFF.finditer(before):
        pass
    if clause is None or _CLAUSE_END.search(before, clause.end()):
        return None  # not inside a relative clause
    if clause.group(2) == "whose" and _TIE_AHEAD.match(before, clause.end()):
        return None  # "Eva Hostilová, whose mother was born …": about her mother (stated_for reads the tie)
    if (clause.group(2) == "which") == person:
        return ""
    antecedent = _named_tail(clause.group(1))
    if not antecedent:
        return None
    return "" if any(_refers_to(antecedent, name) for name in names) else antecedent


def distinctive(value: Value) -> bool:
    """Whether another value of this one's shape is another value of the property by its shape alone: an
    identifier of at least ``DISTINCTIVE_LENGTH`` characters, digits and others ("0-306-40615-2", "nm0000123")."""
    text = value.text.strip()
    return value.datatype in ("string", "external-id") and len(text) >= DISTINCTIVE_LENGTH \
        and any(char.isdigit() for char in text) and not text.isdigit()


def stated_for(sentence: str, start: int, end: int, subject: str, *, by_name_alone: bool = True) -> str:
    """Who else ``sentence`` gives the value at ``sentence[start:end]`` for — the words naming them ("his friend
    Karel Novák", "Smith's first wife", "Jane Smith") — or "" when its clause is about the subject, or says nothing
    of whom. ``by_name_alone``: a clause opened by capitalised words that are not the subject's name is someone
    else's ("Jane Smith died in 1950"), which holds for a sentence naming the property beside a date, not for any
    sentence (an organisation's name opens many)."""
    relative = _antecedent(sentence, start, subject) or _bracketed(sentence, start, subject)
    if relative:
        return relative
    before = _ASIDE.sub(lambda aside: " " * len(aside.group(0)), sentence[:start])
    clause_start = max((match.end() for match in _CLAUSE_START.finditer(before)), default=0)
    clause = before[clause_start:]
    for tied in _TIED.finditer(clause):
        # a possessive's owner is named whole: "Eva Hostilová's brother", not "Eva" and then "Hostilová's brother"
        given = _OWNER_NAME.search(clause, 0, tied.start()) if clause[tied.start():tied.start() + 1].isupper() \
            else None
        owner = given.start() if given is not None else tied.start()
        # "the mother of Eva Hostilová was born …": the name after "of" is whose relative, not the clause's subject
        after = _TIE_OWNER.match(clause, tied.end()) if tied.group(0).endswith("of") else None
        named_end = after.end() if after is not None else tied.end()
        if not _refers_to(clause[:owner], subject) and not _refers_to(clause[named_end:], subject):
            return clause[owner:named_end].strip(" ,")
    birth_given = _BIRTH_GIVEN.search(clause)
    if birth_given is not None:  # "Eva gave birth to her daughter Jana on 15 March 1970": the daughter's birth
        return birth_given.group(0)
    if _OPENING.fullmatch(clause):  # "In 1950, his wife died": the clause's subject follows the value
        after = _TIED.match(sentence, end + len(sentence[end:]) - len(sentence[end:].lstrip(" ,")))
        if after is not None:
            return after.group(0)
    return _another_person(clause, subject) if by_name_alone else ""


def _named_tail(words: str) -> str:
    """The capitalised words ``words`` ends with, the name a relative clause after them is attached to ("grew up
    with Jan Novák" → "Jan Novák"); "" when the last word is not capitalised ("his partner")."""
    tail: list[str] = []
    for word in reversed(words.split()):
        if not word[:1].isupper():
            break
        tail.insert(0, word)
    return " ".join(tail)


def _antecedent(sentence: str, at: int, subject: str) -> str:
    """The words a relative clause holding ``at`` is attached to, when they are not the subject: another name ("his
    friend Karel Novák, who died …") or a tie ("his friend, who died …"); "" otherwise."""
    clause = None
    for clause in _RELATIVE.finditer(sentence, 0, at):
        pass
    if clause is None or clause.end() > at or _CLAUSE_END.search(sentence, clause.end(), at):
        return ""
    named = _named_tail(clause.group(1))
    if named and not _refers_to(named, subject) and named.casefold() not in _NOT_GIVEN_NAMES:
        return named
    if not named and re.search(rf"(?<![\w-]){_TIE}(?![\w-])", clause.group(1), re.IGNORECASE):
        return clause.group(1)
    return ""


def _bracketed(sentence: str, start: int, subject: str) -> str:
    """Whose dates a parenthesis holding ``start`` gives: the words right before it, when they are a tie ("Her
    father (1 May 1801 – 2 June 1870)") or, for a person, another person's name ("the son of Charles Clarke
    (1795-1857)"); "" otherwise."""
    opened = sentence.rfind("(", 0, start)
    if opened < 0 or ")" in sentence[opened:start]:
        return ""
    before = sentence[:opened].rstrip()
    tied = [match for match in _TIED.finditer(before) if match.end() == len(before)]
    if tied:
        return tied[-1].group(0)
    runs = capitalised_runs(before)
    if runs and runs[-1][1] == len(before) and _family_name(subject):
        name = before[runs[-1][0]:]
        words = [word for word in name.split() if word.casefold().rstrip(".") not in _NOT_GIVEN_NAMES]
        if len(words) >= 2 and not _refers_to(name, subject):
            return name
    return ""


def _refers_to(text: str, subject: str) -> bool:
    """Whether ``text`` names the subject (its label, its family name not after another given name) or refers to
    someone by a pronoun (he, she, they: the subject, as far as a sentence can tell)."""
    if mentions(subject, text) or _PRONOUN.search(text):
        return True
    surname = _family_name(subject)
    if not surname:
        return False
    own = {word.casefold() for word in subject.split()}
    for match in re.finditer(rf"(?<!\w){re.escape(surname)}(?!\w)", text):
        before = re.search(r"([\w'’.-]+)\s+\Z", text[:match.start()])
        word = before.group(1).rstrip(".") if before else ""
        if not word[:1].isupper() or word.casefold() in own | _NOT_GIVEN_NAMES:
            return True
    return False


def _another_person(clause: str, subject: str) -> str:
    """For a person, the name opening ``clause`` when it is someone else's ("Jane Smith died in 1950" on John
    Smith's page); "" otherwise."""
    if not _family_name(subject):
        return ""
    for start, end in capitalised_runs(clause):
        words = clause[start:end].split()
        while words and words[0].casefold().rstrip(".") in _NOT_GIVEN_NAMES:
            words = words[1:]
        if len(words) < 2:
            continue
        if len(words) > 4 or _refers_to(clause[:end], subject):
            return ""  # a heading or a label line, or the subject: the clause opens with no other person's name
        return " ".join(words)
    return ""


def _family_name(label: str) -> str:
    """The last of two to four capitalised words making a personal name ("Marta Novotná" → "Novotná"); ""."""
    words = label.replace(",", " ").split()
    if not 2 <= len(words) <= 4 or not all(word[:1].isupper() and not any(c.isdigit() for c in word)
                                           for word in words):
        return ""
    return words[-1] if len(words[-1]) >= 3 else ""
