"""How the judge weighs a claim against its contrasting relations, on constructed log-likelihoods.

The backend is scripted (as httpx's MockTransport scripts a server): it answers P(yes) and each phrase's token
log-probabilities from a table, so the comparison itself — per token, against the phrase's prior — is what
is tested. The real models are exercised in test_transformers_backend and test_openai_backend.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from bot.datamodel import Claim, Relation, Verdict
from bot.judge.backend import Choice, Continuations
from bot.judge.engine import Judge
from bot.prompts import REFBOT

RECEIVED = Relation("award received", "", "received")
NOMINATED = Relation("nominated for", "", "was nominated for")
TEXT = "Marta Novotná was one of three finalists for the European Catalysis Medal."


@dataclass
class Scripted:
    """P(yes) and, per continuation, its token log-probabilities after the text and without it."""

    p_yes: float
    with_text: dict[str, tuple[float, ...]]
    without_text: dict[str, tuple[float, ...]]
    model_id: str = "scripted"
    max_in_flight: int = 1
    asked: list[str] = field(default_factory=list)

    def context_tokens(self) -> int:
        return 4096

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def choose(self, messages, letters) -> Choice:
        return Choice({"yes": self.p_yes, "no": 1 - self.p_yes}, 90)

    def continuation_logprobs(self, prefix: str, continuations) -> Continuations:
        given = not prefix.startswith("In summary")
        self.asked.append("text" if given else "prior")
        table = self.with_text if given else self.without_text
        scores = tuple(table[continuation.strip()] for continuation in continuations)
        return Continuations(scores, 10 + sum(len(score) for score in scores))


def judge(backend: Scripted) -> Judge:
    return Judge(backend, REFBOT, justify=False)


def claim(*alternatives: Relation) -> Claim:
    return Claim("Marta Novotná", "award received", "European Catalysis Medal", "", alternatives, "received")


def test_a_longer_phrase_is_not_beaten_for_its_length():
    # Summed, "received" (-1.0) beats "was nominated for" (-2.4 over three tokens); per token the text favours
    # the nomination (-0.6 against -1.0), which is what it says.
    backend = Scripted(0.9,
                       {"received European Catalysis Medal": (-1.0,),
                        "was nominated for European Catalysis Medal": (-0.6, -0.6, -0.6, -0.6)},
                       {"received European Catalysis Medal": (-3.0,),
                        "was nominated for European Catalysis Medal": (-3.0, -3.0, -3.0, -3.0)})
    judgement = judge(backend).judge(claim(NOMINATED), TEXT)
    received, nominated = judgement.compared
    assert (received.label, nominated.label) == ("award received", "nominated for")
    assert received.score == pytest.approx(2.0) and nominated.score == pytest.approx(2.4)
    assert received.share < 0.5 < nominated.share
    assert judgement.support == pytest.approx(received.share, abs=1e-5)
    assert judgement.verdict is Verdict.NOT_INFERRABLE and not judgement.supported


def test_a_phrase_likely_anyway_gains_nothing_from_being_common():
    # "is a" is far likelier than "is a type of" with or without the text; only the latter gains from the text.
    subclass = Relation("subclass of", "", "is a type of")
    backend = Scripted(0.95, {"is a treaty": (-0.5, -2.0), "is a type of treaty": (-0.5, -2.5, -0.1, -0.5)},
                       {"is a treaty": (-0.5, -2.0), "is a type of treaty": (-0.5, -4.5, -0.1, -4.5)})
    claimed = Claim("Four Power Pact", "instance of", "treaty", "", (subclass,), "is a")
    compared = judge(backend).judge(claimed, "The pact is a kind of treaty among four powers.").compared
    assert compared[0].score == pytest.approx(0.0) and compared[1].score == pytest.approx(1.5)
    assert compared[0].share < 0.5


def test_the_text_that_states_the_claim_supports_it_and_the_prior_is_asked_once_per_claim():
    backend = Scripted(0.9,
                       {"received European Catalysis Medal": (-0.2,),
                        "was nominated for European Catalysis Medal": (-2.0, -2.0, -1.0, -0.5)},
                       {"received European Catalysis Medal": (-3.0,),
                        "was nominated for European Catalysis Medal": (-3.0, -3.0, -1.0, -0.5)})
    judged = judge(backend)
    first = judged.judge(claim(NOMINATED), "Novotná received the European Catalysis Medal in 2020.")
    second = judged.judge(claim(NOMINATED), "In 2020 Novotná received the European Catalysis Medal.")
    assert first.supported and second.supported and first.compared[0].share > 0.9
    assert backend.asked == ["text", "prior", "text"]
    assert first.prompt_tokens > second.prompt_tokens  # the prior's tokens are counted once, when asked
    assert "against nominated for" in first.answer


def test_without_contrasts_the_claim_is_judged_alone():
    backend = Scripted(0.8, {}, {})
    judgement = judge(backend).judge(claim(), TEXT)
    assert backend.asked == [] and judgement.compared == ()
    assert judgement.support == pytest.approx(0.8) and judgement.supported
