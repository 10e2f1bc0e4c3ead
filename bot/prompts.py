"""Every prompt refbot sends, in one place, each identified by the template id recorded in its judgements.

``paper`` reproduces the published three-option prompt and generation parameters exactly (Adam & Kliegr), so
results stay comparable. ``refbot`` is the default: it reads the verdict from the probabilities of the option
letters after one forward pass (one generated token), which is cheap and gives a calibrated support score, and
it asks for a short justification only when the statement is supported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, Mapping

from bot.datamodel import Claim, Relation
from bot.errors import ConfigError

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
    mode: Literal["generate", "choice"]
    generation: Generation
    # How much each option counts as support; the verdict letter is what the answer chose.
    option_support: Mapping[str, float] = field(
        default_factory=lambda: MappingProxyType({"a": 1.0, "b": 0.5, "c": 0.0}))
    # Said once more when the first answer could not be read.
    reminder: str = "Answer with the letter of one option only: a), b) or c)."
    justification: str = ""
    justification_generation: Generation = Generation(max_tokens=64)
    # Used instead of ``user`` when the claim names alternative relations: the claimed relation is option a,
    # each alternative the next letter, and the last letter says the snippet states none of them.
    contrast_user: str = ""
    contrast_option: str = ""
    contrast_none: str = ""
    # Show the model only the sentences of a long snippet that name the claim's entities (bot.judge.focus).
    focus: bool = False
    # Answer "c" without asking the model when the snippet does not name the claim's object (bot.judge.mentions).
    require_object_mention: bool = False

    def options(self, claim: Claim) -> tuple[tuple[str, str], ...]:
        """(letter, meaning) pairs, meaning "claim" (the claim holds), "other" (another relation holds) or
        "none" (the snippet states no relation between them)."""
        if not self._contrasts(claim):
            return (("a", "claim"), ("b", "other"), ("c", "none"))
        relations = self._relations(claim)
        meanings = tuple("claim" if r.label == claim.predicate else "other" for r in relations) + ("none",)
        return tuple(zip("abcdefgh", meanings))

    @staticmethod
    def _relations(claim: Claim) -> list[Relation]:
        # A fixed order, whichever relation is claimed: small models favour some positions, and a bias that is
        # the same for every claim of a relation family does not separate true claims from false ones.
        relations = {r.label: r for r in (Relation(claim.predicate, claim.predicate_description),
                                          *claim.alternatives)}
        return [relations[label] for label in sorted(relations)]

    def messages(self, claim: Claim, snippet: str) -> list[Message]:
        fields = {"subject": claim.subject, "predicate": claim.predicate, "object": claim.object,
                  "snippet": snippet, "definition": _definition(claim.predicate, claim.predicate_description)}
        if self._contrasts(claim):
            letters = [letter for letter, _ in self.options(claim)]
            options = [self.contrast_option.format(letter=letter.upper(), subject=claim.subject,
                                                   object=claim.object, predicate=readable(relation.label),
                                                   description=relation.description or readable(relation.label))
                       for letter, relation in zip(letters, self._relations(claim))]
            options.append(self.contrast_none.format(letter=letters[-1].upper(), **fields))
            user = self.contrast_user.format(options="\n".join(options), **fields)
        else:
            user = self.user.format(**fields)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]

    def _contrasts(self, claim: Claim) -> bool:
        return bool(claim.alternatives and self.contrast_user)

    @property
    def text(self) -> str:
        """The template as recorded in traces: system prompt, then user prompt(s) with their placeholders."""
        text = f"[system]\n{self.system}\n[user]\n{self.user}"
        if self.contrast_user:
            text += (f"\n[user, when the claim has alternative relations]\n{self.contrast_user}\n"
                     f"[option]\n{self.contrast_option}\n[last option]\n{self.contrast_none}")
        return text


def readable(label: str) -> str:
    """An identifier-like predicate ("Positive_Correlation") as words; ordinary labels are left as they are."""
    return label.replace("_", " ").lower() if "_" in label else label


def _definition(label: str, description: str) -> str:
    return f' ("{label}" means: {description})' if description else ""


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
    user=(
        'Snippet: "{snippet}"\n'
        "\n"
        'Claim: "{subject}" - {predicate} - "{object}"{definition}\n'
        "\n"
        "Using only the snippet, which is true?\n"
        'a) The snippet states this claim about "{subject}" and "{object}".\n'
        "b) The snippet relates them differently: another or the opposite relation, or only a hint.\n"
        "c) The snippet does not relate them.\n"
        "Answer with one letter."
    ),
    mode="choice",
    generation=Generation(max_tokens=1),
    option_support=MappingProxyType({"a": 1.0, "b": 0.0, "c": 0.0}),
    reminder="Answer with one letter: a, b or c.",
    justification=("Quote the sentence of the snippet that states the claim, then explain in one short "
                   "sentence why it supports the claim."),
    contrast_user=(
        'Text: "{snippet}"\n'
        "\n"
        "Which claim does the text support?\n"
        "{options}\n"
        "Answer with one letter."
    ),
    contrast_option='{letter}) "{subject}" - {predicate} - "{object}" ({predicate}: {description})',
    contrast_none='{letter}) None of them: the text does not state how "{subject}" and "{object}" are related.',
    focus=True,
    require_object_mention=True,
)

TEMPLATES: Mapping[str, Template] = MappingProxyType({t.id: t for t in (PAPER, REFBOT)})


def template_by_id(template_id: str) -> Template:
    try:
        return TEMPLATES[template_id]
    except KeyError:
        raise ConfigError(f"unknown prompt template {template_id!r}",
                          hint=f"choose one of: {', '.join(TEMPLATES)}") from None
