"""Every prompt refbot sends, in one place, each identified by the template id recorded in its judgements.

``paper`` reproduces the published three-option prompt and generation parameters exactly (Adam & Kliegr), so
results stay comparable. ``refbot`` is the default. It asks a yes/no question per relation and reads P(yes)
from the first answer token (one forward pass, no generation), so the support score is a probability rather
than a parsed word. When the claim names contrasting relations (an opposite, an inverse), the same question is
asked for each, and the claim counts as supported only if the model prefers it to every alternative: a small
model says "yes" to anything that names both entities, and only the comparison cancels that bias; it continues
the question's own prompt right after the text, so that the text is read once for both. A short justification
is generated only when asked, for the paragraph proposed as the reference.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal, Mapping

from bot.datamodel import Claim, Relation
from bot.errors import ConfigError
from bot.judge.periods import when_text
from bot.values.language import text_language

Message = dict[str, str]


@dataclass(frozen=True)
class Generation:
    """Sampling parameters, as an OpenAI-compatible API names them."""

    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int = 42

    def as_request(self) -> dict[str, float | int]:
        return {"max_tokens": self.max_tokens, "temperature": self.temperature, "top_p": self.top_p,
                "seed": self.seed}


@dataclass(frozen=True)
class Template:
    id: str
    system: str
    user: str
    # "generate": the model writes an answer naming option a, b or c, which bot.judge.answers reads.
    # "yes-no": P(yes) is read from the first answer token, once per relation (the claim and its contrasts).
    mode: Literal["generate", "yes-no"]
    generation: Generation
    # How much each option of a generated answer counts as support.
    option_support: Mapping[str, float] = field(
        default_factory=lambda: MappingProxyType({"a": 1.0, "b": 0.5, "c": 0.0}))
    # Said once more when the first answer could not be read.
    reminder: str = "Answer with the letter of one option only: a), b) or c)."
    justification: str = ""
    justification_generation: Generation = Generation(max_tokens=64)
    # Show the model only the sentences of a long snippet that name the claim's entities (bot.judge.focus).
    focus: bool = False
    # Answer "c" without asking the model when the snippet does not name the claim's object (bot.values).
    require_object_mention: bool = False

    # The question when the claim's relation has a curated phrase (``Claim.as_sentence``): the claim as the
    # sentence a text would state it ("Marta Novotná received the Brno Innovation Award"), which a small model
    # checks against the text far better than a triple (P(yes)'s ROC AUC 0.64 → 0.74 on T-REx-Verify-Hard,
    # 0.64 → 0.89 on WTR).
    sentence_user: str = ""
    # The request for the text's summary whose continuations weigh the claim's relation against its contrasts
    # (``summary_messages``); it begins as the questions do, so the text's key-value cache serves both.
    summary_user: str = ""
    # Said before the question (its ``{note}``) when the text is in another language than English, the claim's
    # (``bot.values.language``): told so, the small model affirms a claim a German, French or Russian text states
    # more readily (on multilingual-dev's rows that write the value, 3 more of 92 true statements supported, no false
    # one; naming the language instead, "The text is in Russian.", lost 4). English texts are asked as before.
    language_note: str = ""

    def messages(self, claim: Claim, snippet: str) -> list[Message]:
        """The question about ``claim``; a claim restricted in time (``Claim.when``) says when it holds after the
        claim ("… received the Purkyně Prize for Chemistry in 2021"), except in ``paper``'s published prompt."""
        when = f" {when_text(claim.when)}" if claim.when and self.mode == "yes-no" else ""
        note = self.note_for(snippet)
        if self.sentence_user and claim.predicate_phrase and claim.as_sentence:
            statement = claim.subject + summary_continuation(claim, claim.relation) + when
            user = self.sentence_user.format(snippet=snippet, statement=statement, note=note)
        else:
            label = self.predicate_label(claim.predicate)
            definition = f" ({label}: {claim.predicate_description})" if claim.predicate_description else ""
            user = self.user.format(subject=claim.subject, predicate=label, object=claim.object, snippet=snippet,
                                    definition=definition + when, note=note)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    def note_for(self, snippet: str) -> str:
        """``language_note`` for a snippet in another language than English (identified from its text), else ""."""
        if not self.language_note or not snippet:
            return ""
        language = text_language(snippet)
        return self.language_note if language is not None and language != "en" else ""

    def summary_messages(self, snippet: str) -> list[Message]:
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": self.summary_user.format(snippet=snippet)}]

    def predicate_label(self, label: str) -> str:
        """``paper`` shows labels verbatim; ``refbot`` turns identifiers ("Positive_Correlation") into words."""
        return as_words(label) if self.mode == "yes-no" else label

    @property
    def text(self) -> str:
        """The template as recorded in traces: system prompt, then user prompt(s) with their placeholders."""
        sentence = f"\n[user, when the relation has a phrase]\n{self.sentence_user}" if self.sentence_user else ""
        summary = (f"\n[user, the summary the relations continue]\n{self.summary_user}\n[assistant]\n{SUMMARY_ANSWER}"
                   if self.summary_user else "")
        note = f"\n[note, when the text is not in English]\n{self.language_note}" if self.language_note else ""
        return f"[system]\n{self.system}\n[user]\n{self.user}{sentence}{summary}{note}"


def as_words(label: str) -> str:
    """An identifier-like label ("Positive_Correlation") as words; ordinary labels are left as they are."""
    return label.replace("_", " ").lower() if "_" in label else label


def as_relation(claim: Claim, relation: Relation) -> Claim:
    """The same subject and object with another relation: the claim an alternative would make."""
    return replace(claim, predicate=relation.label, predicate_description=relation.description,
                   predicate_phrase=relation.phrase, alternatives=())


# Contrasting relations are told apart by how likely the model finds each as the continuation of the text:
# "<snippet>\n\nIn summary, <subject>" + " <phrase> <object>". Read as a language model, a small model follows
# the text's wording where, asked as an assistant, it answers "yes" to both. A backend that renders chat
# prompts is asked the template's ``summary_user`` instead, the assistant's answer begun with SUMMARY_ANSWER: the
# question and the summary then share their start, system prompt and text, which the model reads once for both.
SUMMARY_PREFIX = "{snippet}\n\nIn summary, {subject}"
SUMMARY_ANSWER = "In summary, {subject}"
SUMMARY_CONTINUATION = " {phrase} {object}"


def summary_prefix(claim: Claim, snippet: str) -> str:
    """The text, then the start of its summary; without a text, the summary's start alone (the prior)."""
    if not snippet:
        return SUMMARY_PREFIX.split("\n\n", 1)[1].format(subject=claim.subject)
    return SUMMARY_PREFIX.format(snippet=snippet, subject=claim.subject)


def summary_continuation(claim: Claim, relation: Relation) -> str:
    phrase = relation.phrase or as_words(relation.label).lower()
    continuation = SUMMARY_CONTINUATION.format(phrase=phrase, object=claim.object)
    return continuation[1:] if phrase.startswith("'") else continuation  # "France's capital is", not "France 's"


PAPER = Template(
    id="paper",
    system="You are a helpful assistant. Work only with the text given to you.",
    user=(
        "Can the given RDF be inferred from the given snippet?\n"
        "\n"
        'RDF for verification: ["{subject}" - "{predicate}" - "{object}"].\n'
        'Snippet to verify from: "{snippet}"\n'
        "\n"
        "Please, choose the correct option based on your answer!\n"
        "a) The RDF statement can be directly verified from the snippet. The snippet contains direct proof.\n"
        "b) The snippet contains some indications of the truthfulness of the RDF.\n"
        "c) The RDF statement definitely cannot be inferred from the snippet."
    ),
    mode="generate",
    generation=Generation(max_tokens=500, temperature=0.1, top_p=0.9, seed=42),
)

REFBOT = Template(
    id="refbot",
    system="You are a careful fact checker. Use only the text given to you, never your own knowledge.",
    # The snippet comes first, so the questions about one snippet share a prefix that servers cache.
    user=(
        'Text: "{snippet}"\n'
        "\n"
        'Claim: "{subject}" - {predicate} - "{object}"{definition}\n'
        "\n"
        "{note}Does the text state this claim? Answer yes or no."
    ),
    sentence_user=(
        'Text: "{snippet}"\n'
        "\n"
        "Claim: {statement}.\n"
        "\n"
        "{note}Does the text state this claim? Answer yes or no."
    ),
    language_note="The text may be in another language. ",
    summary_user=(
        'Text: "{snippet}"\n'
        "\n"
        "Summarise the text in one sentence."
    ),
    mode="yes-no",
    generation=Generation(max_tokens=1),
    reminder="Answer with one word: yes or no.",
    justification=("Quote the sentence of the text that states the claim, then explain in one short sentence "
                   "why it supports the claim."),
    focus=True,
    require_object_mention=True,
)

TEMPLATES: Mapping[str, Template] = MappingProxyType({t.id: t for t in (PAPER, REFBOT)})

# FactGenius' first step for an item value the text does not write (bot.judge.naming): the model copies the words
# that state it, which refbot then checks. The value is not named, so that the model copies what the text says
# rather than what the question suggests.
NAMING_USER = ('Text: "{snippet}"\n'
               "\n"
               "Which words of the text state {subject}'s {predicate}? Copy them exactly, or answer none.")
NAMING_GENERATION = Generation(max_tokens=16)


def naming_messages(template: Template, claim: Claim, snippet: str) -> list[Message]:
    """The question asking which words of ``snippet`` state the claim's property, after the template's system
    prompt (the text comes first, as in the template's questions, so a server's cache serves both)."""
    user = NAMING_USER.format(snippet=snippet, subject=claim.subject,
                              predicate=template.predicate_label(claim.predicate))
    return [{"role": "system", "content": template.system}, {"role": "user", "content": user}]


def template_by_id(template_id: str) -> Template:
    try:
        return TEMPLATES[template_id]
    except KeyError:
        raise ConfigError(f"unknown prompt template {template_id!r}",
                          hint=f"choose one of: {', '.join(TEMPLATES)}") from None


# -- text to SPARQL (`refbot select --ask`, bot.asking) ------------------------------------------------------------

@dataclass(frozen=True)
class SparqlTemplate:
    """The prompts that turn a question and its graph fragment into SPARQL: ``user`` asks for a query (the first
    candidate with ``generation``, the others with ``sampling``), ``repair`` shows a refused candidate with the
    checker's reason once, ``choose`` asks which candidate's results answer the question."""

    id: str
    system: str
    user: str  # {question} {fragment} {limit}
    repair: str  # {query} {reason}
    choose: str  # {question} {options} {letters}
    generation: Generation
    sampling: Generation


ASK_SPARQL = SparqlTemplate(
    id="ask-sparql",
    system=(
        "You write SPARQL 1.1 SELECT queries for Wikidata's graph. Rules:\n"
        "- Return the query only, in a ```sparql block.\n"
        "- Start from the draft: its lines use the graph's own patterns for the terms; keep them, add what the "
        "question asks and the draft lacks (a date, an absence, a count), drop a line the question does not ask "
        "for.\n"
        "- SELECT DISTINCT ?item, and nothing the question does not need.\n"
        "- Use only the ids listed under Terms, with the patterns shown there; never guess another id.\n"
        "- The prefixes wd: wdt: p: ps: pq: wikibase: prov: rdfs: are declared already.\n"
        "- Members of a class and its subclasses: ?item wdt:P31/wdt:P279* wd:Q… .\n"
        "- Years: FILTER(YEAR(?date) >= 1701 && YEAR(?date) <= 1800) for the 18th century. Absence: "
        "FILTER NOT EXISTS { … }.\n"
        "- Counting statements comes after the closing brace of WHERE: } GROUP BY ?item HAVING "
        "(COUNT(DISTINCT ?statement) > 2) for \"more than two\", >= 2 for \"at least two\".\n"
        "- No SERVICE, no FROM."),
    user=(
        "Example.\nQuestion: French novels published before 1850 whose author has no reference\n"
        "Terms:\n"
        "- item Q142 \"France\" (the question's \"French\"): country in western Europe\n"
        "    it is the value of property P495 \"country of origin\": ?item wdt:P495 wd:Q142 .\n"
        "- item Q8261 \"novel\" (the question's \"novels\"): narrative text, normally of a substantial length\n"
        "    it is the value of property P31 \"instance of\": ?item wdt:P31 wd:Q8261 .\n"
        "- property P577 \"publication date\" (the question's \"published\"): date or point in time when a work "
        "was first published\n"
        "    its value: ?item wdt:P577 ?value .\n"
        "- property P50 \"author\" (the question's \"author\"; its statements need a reference): main creator of "
        "a written work\n"
        "    its value: ?item wdt:P50 ?value .\n"
        "    its statements without a reference: ?item p:P50 ?statement . ?statement wikibase:rank ?rank . "
        "FILTER(?rank != wikibase:DeprecatedRank) FILTER NOT EXISTS { ?statement prov:wasDerivedFrom ?reference . }\n"
        "Draft:\n```sparql\nSELECT DISTINCT ?item WHERE {\n  ?item wdt:P495 wd:Q142 .\n  ?item wdt:P31 wd:Q8261 .\n"
        "  ?item p:P50 ?statement .\n  ?statement wikibase:rank ?rank .\n"
        "  FILTER(?rank != wikibase:DeprecatedRank)\n"
        "  FILTER NOT EXISTS { ?statement prov:wasDerivedFrom ?reference . }\n}\nLIMIT {limit}\n```\n"
        "Query (the draft, and the date the question adds):\n"
        "```sparql\nSELECT DISTINCT ?item WHERE {\n  ?item wdt:P495 wd:Q142 .\n  ?item wdt:P31 wd:Q8261 .\n"
        "  ?item wdt:P577 ?published .\n  FILTER(YEAR(?published) < 1850)\n"
        "  ?item p:P50 ?statement .\n  ?statement wikibase:rank ?rank .\n"
        "  FILTER(?rank != wikibase:DeprecatedRank)\n"
        "  FILTER NOT EXISTS { ?statement prov:wasDerivedFrom ?reference . }\n}\nLIMIT {limit}\n```\n\n"
        "Question: {question}\nTerms:\n{fragment}\nDraft:\n```sparql\n{draft}\n```\nQuery:\n"),
    repair=(
        "This query was refused: {reason}\n```sparql\n{query}\n```\n"
        "The ids you may use: {ids}. Write the query again, following the rules, in a ```sparql block."),
    choose=(
        "Question: {question}\nEach query below was run; a sample of the items it returned is shown.\n\n{options}\n\n"
        "Which query answers the question? Answer with its letter only: {letters}."),
    generation=Generation(max_tokens=320, temperature=0.0, seed=42),
    sampling=Generation(max_tokens=320, temperature=0.7, top_p=0.95, seed=42),
)
SPARQL_TEMPLATES: Mapping[str, SparqlTemplate] = MappingProxyType({ASK_SPARQL.id: ASK_SPARQL})


# -- relations of an authority record (`refbot check`'s corroboration, bot.corroboration.picking) -----------------

@dataclass(frozen=True)
class RelationTemplate:
    """FactGenius's filter: the model is shown a record's relations and names those that state the statement's
    property; its answer is kept only where it names a relation of the list (bot.corroboration.picking)."""

    id: str
    system: str
    user: str  # {property} {description} {relations}
    generation: Generation


KG_RELATIONS = RelationTemplate(
    id="kg-relations",
    system=("You read the relations of a library's authority record. For a meaning, copy the names of the "
            "relations that have exactly that meaning, as listed, one per line. Copy only names from the list: "
            "never write the meaning itself or any other name. If none has that meaning, answer none. Use only "
            "the words, never what you know about the subject."),
    user=("Relations:\n- date of birth (1901-02-03)\n- died (1975-04-05)\n- name (Smith, John)\n"
          "Meaning: date on which the subject died\nRelations with that meaning: died\n\n"
          "Relations:\n- place of birth (Vienna)\n- member of (Vienna Philharmonic)\n"
          "Meaning: organization for which the subject works or worked\nRelations with that meaning: none\n\n"
          "Relations:\n- established (1897)\n"
          "Meaning: time when an organization was founded\nRelations with that meaning: established\n\n"
          "Relations:\n{relations}\nMeaning: {description}\nRelations with that meaning:"),
    generation=Generation(max_tokens=48, temperature=0.0, seed=42),
)
