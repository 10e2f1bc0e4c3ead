"""Evidence against: a paragraph that writes the value about the subject and negates it, or ties it to the subject by
a contrasting relation, says the statement is false (``bot.checking.against``); such a paragraph flags a statement no
page supports as contradicted, and rides along with a supported one."""

from __future__ import annotations

import pytest

from bot.checking.against import CONTRAST, NEGATED, Against, evidence_against
from bot.checking.ranking import Ranked
from bot.checking.records import Candidate, DocumentCheck, Judged, Outcome
from bot.checking.statement import decide
from bot.datamodel import Judgement, Paragraph, Relation, Statement, Value, Verdict
from bot.values import statement_finder

MEDAL = Statement("Q990201", "Marta Novotná", "Q990201$1", "P166", "award received",
                  Value("wikibase-item", "Q990213", "European Catalysis Medal"))
RECEIVED = Relation("award received", "", "received")
NOMINATED = (Relation("nominated for", "", "was nominated for"),)
BRNO = Statement("Q990201", "Marta Novotná", "Q990201$2", "P19", "place of birth", Value("wikibase-item", "Q3", "Brno"))
BORN = Relation("place of birth", "", "was born in")


def against(text: str, statement: Statement = MEDAL, contrasts=NOMINATED, relation: Relation = RECEIVED):
    return evidence_against(text, statement_finder(statement), [statement.item_label], relation, contrasts)


@pytest.mark.parametrize("text, kind, cue", [
    ("The medal went to Janssens alone; Novotná and Roux, as the two other finalists, each receive a certificate of "
     "commendation but not the European Catalysis Medal itself.", NEGATED, "not"),
    ("Marta Novotná is a chemist. She did not receive the European Catalysis Medal.", NEGATED, "not"),
    ("Novotná didn't receive the European Catalysis Medal.", NEGATED, "didn't"),
    ("Novotná never received the European Catalysis Medal, though she was twice shortlisted.", NEGATED, "never"),
    ("The European Catalysis Medal was not awarded to Novotná that year.", NEGATED, "was not awarded"),
    ("Novotná was nominated for the European Catalysis Medal in 2020.", CONTRAST, "nominated for"),
    ("In 2020 Novotná was among those nominated for the European Catalysis Medal.", CONTRAST, "nominated for"),
])
def test_a_sentence_about_the_subject_that_negates_the_value_or_states_a_contrasting_relation(text, kind, cue):
    found = against(text)
    assert found is not None and found.kind == kind and found.cue == cue
    assert "European Catalysis Medal" in found.sentence


@pytest.mark.parametrize("text", [
    "Novotná received the European Catalysis Medal in 2020.",
    "Novotná, who never stopped working, received the European Catalysis Medal in 2020.",  # another clause's "never"
    "Novotná received not only the European Catalysis Medal but also the Purkyně Prize.",
    "Roux was nominated for the European Catalysis Medal. Novotná gave the opening talk.",  # about someone else
    "Nobody was nominated for the European Catalysis Medal twice.",  # does not name the subject
    "Novotná did not attend the dinner, and she received the European Catalysis Medal from the president.",
    "Novotná was nominated for the Purkyně Prize.",  # does not write the value
    # A negation of something else, or one the sentence lifts, does not deny the value.
    "It was not until 2020 that Novotná received the European Catalysis Medal.",
    "Novotná did not receive the European Catalysis Medal until 2020.",
    "It is no surprise that Novotná received the European Catalysis Medal.",
    "Novotná received the European Catalysis Medal, which had never before gone to a woman.",
    "Novotná won the European Catalysis Medal and it was never revoked.",
    "No other Czech chemist has received the European Catalysis Medal; Novotná did in 2020.",
    "Novotná never attended a ceremony for the European Catalysis Medal, which she received in 2020.",
])
def test_support_someone_else_and_other_clauses_are_not_evidence_against(text):
    assert against(text) is None


@pytest.mark.parametrize("text, negated", [
    ("Novotná was born in Brno, which is not far from Vienna.", False),
    ("Novotná was born in Brno. She never left Brno.", False),
    ("Marta Novotná was not born in Brno but in Olomouc.", True),
])
def test_only_a_negation_of_the_relation_itself_denies_a_birthplace(text, negated):
    found = against(text, BRNO, (), BORN)
    assert (found is not None and found.kind == NEGATED) is negated


def test_a_contrast_is_read_from_the_relations_the_property_is_told_apart_from():
    assert against("Novotná was nominated for the European Catalysis Medal.", contrasts=()) is None
    shortlisted = (Relation("nominated for", "", "was nominated for", ("was shortlisted for",)),)
    found = against("Novotná was shortlisted for the European Catalysis Medal.", contrasts=shortlisted)
    assert found is not None and found.kind == CONTRAST


def judged(text: str, verdict: Verdict, against_: Against | None = None) -> Judged:
    paragraph = Paragraph(text, "https://example.org/", 0, 0, len(text))
    ranked = Ranked(paragraph, 1.0, 1.0, 1.0, subject_rule="named")
    judgement = Judgement(verdict, 0.9 if verdict is Verdict.SUPPORTS else 0.1, "", "", "m", "t", 10, 1, 0.1,
                          written="label", written_form="European Catalysis Medal")
    return Judged(ranked, judgement, against_)


def document(url: str, *answers: Judged) -> DocumentCheck:
    return DocumentCheck(Candidate(url, "search"), None, answers)


NEGATION = Against(NEGATED, "not", "… but not the European Catalysis Medal itself.")


def test_a_paragraph_stating_otherwise_flags_a_statement_no_page_supports(monkeypatch):
    monkeypatch.setattr(DocumentCheck, "readable", property(lambda self: True))
    flagging = judged("…", Verdict.NOT_INFERRABLE, NEGATION)
    outcome, reason = decide([document("https://chemreview.example/medal", flagging)], [], has_candidates=True)
    assert outcome is Outcome.CONTRADICTED
    assert reason == ('https://chemreview.example/medal states otherwise, the value is negated (“not”): '
                      '"… but not the European Catalysis Medal itself."')


def test_support_elsewhere_is_still_proposed_and_the_reason_names_the_evidence_against(monkeypatch):
    monkeypatch.setattr(DocumentCheck, "readable", property(lambda self: True))
    outcome, reason = decide([document("https://a.example/", judged("…", Verdict.SUPPORTS)),
                              document("https://b.example/", judged("…", Verdict.NOT_INFERRABLE, NEGATION))],
                             [], has_candidates=True)
    assert outcome is Outcome.SUPPORTED
    assert reason.startswith("1 supporting paragraph(s) in 1 document(s); 1 paragraph(s) state otherwise: "
                             "https://b.example/ states otherwise")


def test_a_contrasting_relation_alone_is_evidence_against_shown_beside_not_found(monkeypatch):
    monkeypatch.setattr(DocumentCheck, "readable", property(lambda self: True))
    taught = Against(CONTRAST, "employer", "Beneš has taught guest studios at ČVUT since 2016.")
    outcome, reason = decide([document("https://news.example/studio", judged("…", Verdict.NOT_INFERRABLE, taught))],
                             [], has_candidates=True)
    assert outcome is Outcome.NOT_FOUND
    assert reason.endswith('; evidence against: https://news.example/studio states otherwise, it states another '
                           'relation: employer: "Beneš has taught guest studios at ČVUT since 2016."')
