import json

import pytest

from bot.judge.answers import parse_option, published_option
from conftest import SHARED

PUBLISHED = SHARED / "data" / "biored-verify" / "dev.jsonl"
HARD = SHARED / "data" / "biored-verify-hard" / "dev.jsonl"


@pytest.mark.parametrize("answer, expected", [
    ("", None),
    ("   \n ", None),
    ("A", "a"),
    ("c", "c"),
    ("Answer: c)", "c"),
    ("**Answer: a)**", "a"),
    ("The correct answer is:b) The snippet contains some indications", "b"),
    ("(b) because the snippet only hints at it", "b"),
    ("I would choose option C.", "c"),
    ("After analyzing the snippet ... So, I choose option b) The snippet contains some indications.", "b"),
    ("La respuesta correcta es a) El fragmento contiene una prueba directa.", "a"),
    ("Antwort: B", "b"),
    ("Réponse : c) Le RDF ne peut pas être déduit.", "c"),
    ("答案: a)", "a"),
    ("The answer is a bit unclear to me.", None),
    ("Yes.", None),
    ("The RDF statement definitely cannot be inferred from the snippet.", "c"),
    ("Option a) would need direct proof, which is missing, so the answer is c).", "c"),
    ("Choice a) is wrong; c) is right.", None),
    ("The snippet does not allow a).", None),
    ("It is not a), the snippet only hints at it: b).", "b"),
])
def test_reads_the_chosen_option(answer, expected):
    assert parse_option(answer) == expected


def test_options_restated_without_a_choice_are_unparseable():
    restated = ("a) The RDF statement can be directly verified from the snippet. The snippet contains direct "
                "proof.\nb) The snippet contains some indications of the truthfulness of the RDF.\n"
                "c) The RDF statement definitely cannot be inferred from the snippet.")
    assert parse_option(restated) is None
    assert published_option(restated) == "a", "the published rule counted this as support"


def test_a_restated_option_after_a_stated_choice_does_not_override_it():
    assert parse_option("The correct answer is c) — not a) since the snippet never names the award.") == "c"


def _rows(path):
    if not path.exists():
        pytest.skip(f"shared data set not found at {path} (set REFBOT_SHARED)")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("path", [PUBLISHED, HARD], ids=["published", "hard"])
def test_parsing_the_recorded_answers_reproduces_the_published_verdicts(path):
    rows = [row for row in _rows(path) if "paper_answer" in row]
    disagreements = [row["id"] for row in rows if (parse_option(row["paper_answer"]) == "a") != row["paper_verdict"]]
    # Every recorded verdict is reproduced: each answer names its option explicitly ("The correct answer is
    # b) …", "b) …", or after reasoning "I choose option b) …"), which the published rule and ours read alike.
    assert disagreements == []
    published_rule = [row["id"] for row in rows
                      if (published_option(row["paper_answer"]) == "a") != row["paper_verdict"]]
    assert published_rule == []
    assert len(rows) in (1210, 603)
