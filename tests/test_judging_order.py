"""Which paragraphs are asked about, in which order, and when asking stops (bot.checking.judging).

The judge is the real engine; its backend is scripted (bot.judge.scripted): it says yes to a paragraph that reads
"confirmed" and records what it was asked, so the order itself is what is tested.
"""

from __future__ import annotations

from bot.checking.judging import judge_in_rounds
from bot.datamodel import Claim, Paragraph
from bot.judge.engine import Judge
from bot.judge.prompts import REFBOT
from bot.judge.scripted import ScriptedBackend
from bot.checking.ranking import Ranked

CLAIM = Claim("Marta Novotná", "award received", "Purkyně Prize")


def confirms(prompt: str) -> float:
    """The scripted model's P(yes): high for a paragraph that reads "confirmed"."""
    return 0.9 if "confirmed" in prompt else 0.1


def paragraphs_asked(backend: ScriptedBackend) -> list[str]:
    """The paragraphs the judge asked about, in order, by their first word (the text is quoted first)."""
    return [question.split('"')[1].split()[0] for question in backend.questions]


def entry(text: str, score: float) -> Ranked:
    return Ranked(Paragraph(f"{text} Novotná, Purkyně Prize.", "https://a.example/"), score, 1.0, 1.0)


def test_ranked_checking_asks_across_documents_best_first_and_stops_at_the_first_support():
    queues = [[entry("A1", 0.5), entry("A2 confirmed", 0.4)],
              [entry("B1 confirmed", 0.8), entry("B2", 0.7)],
              [entry("C1", 0.6)]]
    backend = ScriptedBackend(confirms)
    judged = judge_in_rounds(Judge(backend, REFBOT, justify=False), CLAIM, queues, first_only=True)
    # The in-process model answers one question at a time: B's best paragraph first (0.8), which supports.
    assert paragraphs_asked(backend) == ["B1"]
    assert [len(answers) for answers in judged] == [0, 1, 0] and judged[1][0].judgement.supported


def test_without_a_support_every_paragraph_is_asked_round_by_round():
    queues = [[entry("A1", 0.5), entry("A2", 0.4)], [entry("B1", 0.8)], [entry("C1", 0.6), entry("C2", 0.1)]]
    backend = ScriptedBackend(confirms)
    judged = judge_in_rounds(Judge(backend, REFBOT, justify=False), CLAIM, queues, first_only=True)
    assert paragraphs_asked(backend) == ["B1", "C1", "A1", "A2", "C2"]
    asked = [[j.ranked.paragraph.text.split()[0] for j in answers] for answers in judged]
    assert asked == [["A1", "A2"], ["B1"], ["C1", "C2"]]


def test_a_server_is_asked_as_many_at_once_as_it_answers_one_paragraph_per_document():
    queues = [[entry("A1 confirmed", 0.5), entry("A2", 0.4)], [entry("B1", 0.8)], [entry("C1", 0.6)]]
    backend = ScriptedBackend(confirms, max_in_flight=2)
    judged = judge_in_rounds(Judge(backend, REFBOT, justify=False), CLAIM, queues, first_only=True)
    # Two at once: B1 and C1 (the best two of the first round), neither supports; then A1, which does.
    assert sorted(paragraphs_asked(backend)[:2]) == ["B1", "C1"]
    assert paragraphs_asked(backend)[2:] == ["A1"]
    assert [len(answers) for answers in judged] == [1, 1, 1]


def test_the_published_order_leaves_each_document_at_its_own_first_support():
    queues = [[entry("A1", 0.5), entry("A2 confirmed", 0.4), entry("A3", 0.3)], [entry("B1 confirmed", 0.8)]]
    backend = ScriptedBackend(confirms)
    judged = judge_in_rounds(Judge(backend, REFBOT, justify=False), CLAIM, queues)
    assert sorted(paragraphs_asked(backend)) == ["A1", "A2", "B1"]
    assert [len(answers) for answers in judged] == [2, 1]
