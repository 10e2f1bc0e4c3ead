"""A statement's outcome from its judged paragraphs and its authority records (``decide``, ``_decide_all``): a page
that gives another value flags the statement for curators, whatever else was found, and nothing is proposed; a
statement whose paragraphs lie in the judge's undecided band is neither proposed nor called unsupported. Pure:
the judgements are built by hand."""

from __future__ import annotations

from datetime import date

from bot.checking.records import Candidate, DocumentCheck, Judged, Outcome
from bot.checking.statement import Plan, _decide_all, decide
from bot.corroboration.stage import Corroboration, Finding
from bot.datamodel import Contradiction, Judgement, Paragraph, Statement, Value, Verdict
from bot.documents.fetching import Fetched, Outcome as FetchOutcome
from bot.documents.paragraphs import Document
from bot.documents.retrieval import Retrieved
from bot.checking.ranking import Ranked
from bot.references import ProposedReference, StatedIn

STATEMENT = Statement("Q990208", "Bořivoj Halaška", "Q990208$CC259826-CCBC-4C2B-BF7D-DBCB8E9CC186", "P569",
                      "date of birth", Value("time", "+1912-03-03T00:00:00Z/11", "3 March 1912"))
BORN = ("Bořivoj Halaška was born on 3 March 1921 in Prostějov, the son of a stonemason. A hundred years later "
        "to the day, the Olomouc Museum of Art opens the first exhibition of his work in two decades.")
SENTENCE = "Bořivoj Halaška was born on 3 March 1921 in Prostějov, the son of a stonemason."
CONFIRMS = "Halaška, born on 3 March 1912 in Prostějov, was the son of a stonemason."
PAGE = "https://chronicle.example/2021/03/halaska-sculptor-centenary.html"
OTHER = "https://museum.example/halaska"


def judgement(verdict: Verdict, support: float = 0.0, *, calibrated: float | None = None,
              contradiction: Contradiction | None = None, written: str = "", form: str = "") -> Judgement:
    return Judgement(verdict, support, "Yes" if verdict is Verdict.SUPPORTS else "No", "", "qwen", "refbot", 120, 1,
                     0.4, written=written, written_form=form, calibrated=calibrated, contradiction=contradiction)


def contradicting() -> Judgement:
    return judgement(Verdict.CONTRADICTS, contradiction=Contradiction("3 March 1921", SENTENCE, 0.93))


def document(url: str, text: str, *answers: Judgement) -> DocumentCheck:
    paragraph = Paragraph(text, url, 0, 0, len(text))
    fetched = Fetched(url, FetchOutcome.OK, final_url=url, status=200, content_type="text/html",
                      retrieved="2026-11-25T10:00:00Z")
    retrieved = Retrieved(url, fetched, Document(url, "html", text, (paragraph,), title="Halaška at 100",
                                                 language="en"))
    judged = tuple(Judged(Ranked(paragraph, 0.8, 1.0, 0.0, subject_rule="named"), answer) for answer in answers)
    return DocumentCheck(Candidate(url, "search", rank=1), retrieved, judged)


def test_a_page_that_gives_another_value_contradicts_the_statement_and_its_reason_quotes_it():
    outcome, reason, reference = _decide_all(STATEMENT, Plan(), None, [document(PAGE, BORN, contradicting())], [])
    assert outcome is Outcome.CONTRADICTED and reference is None
    assert reason == f'{PAGE} gives another value: "3 March 1921" ("{SENTENCE}")'


def test_a_contradicting_page_wins_over_a_supporting_one_and_the_reason_says_curators_must_look():
    supporting = judgement(Verdict.SUPPORTS, 0.97, calibrated=0.95, written="date", form="3 March 1912")
    documents = [document(OTHER, CONFIRMS, supporting), document(PAGE, BORN, contradicting())]
    outcome, reason, reference = _decide_all(STATEMENT, Plan(), None, documents, [])
    assert outcome is Outcome.CONTRADICTED and reference is None
    assert reason.startswith(f'{PAGE} gives another value: "3 March 1921"')
    assert "yet 1 paragraph(s) in 1 document(s) support the statement's value: curators must look" in reason
    # A failed search does not hide what a page says either.
    assert decide(documents, ["web search failed: HTTP 500"], has_candidates=True)[0] is Outcome.CONTRADICTED


def test_a_long_sentence_and_many_contradicting_paragraphs_are_cut_in_the_reason():
    long = Contradiction("1921", "Halaška " + "carved stone " * 60 + "and was born in 1921.", 0.8)
    answers = [judgement(Verdict.CONTRADICTS, contradiction=long) for _ in range(5)]
    outcome, reason = decide([document(PAGE, BORN, *answers)], [], has_candidates=True)
    assert outcome is Outcome.CONTRADICTED
    assert reason.count("gives another value") == 3 and "2 more paragraph(s) give another value" in reason
    quoted = [part.split('("', 1)[1] for part in reason.split("; ") if '("' in part]
    assert len(quoted) == 3 and all(len(sentence) == len('…")') + 299 for sentence in quoted)


def test_paragraphs_in_the_undecided_band_make_the_statement_undecided_not_not_found():
    documents = [document(PAGE, CONFIRMS, judgement(Verdict.INDICATES, 0.71, calibrated=0.48, written="date",
                                                    form="3 March 1912"),
                          judgement(Verdict.NOT_INFERRABLE, 0.2, calibrated=0.1, written="date", form="3 March 1912"),
                          judgement(Verdict.INDICATES, 0.66, calibrated=0.41, written="date", form="3 March 1912"))]
    outcome, reason, reference = _decide_all(STATEMENT, Plan(), None, documents, [])
    assert outcome is Outcome.UNDECIDED and reference is None
    assert "2 of 3 paragraph(s) judged in 1 readable document(s)" in reason
    assert "best calibrated support 0.48" in reason and "neither proposed nor called unsupported" in reason


def test_support_beats_undecided_and_a_failed_service_or_unreadable_answer_is_still_an_error():
    undecided = judgement(Verdict.INDICATES, 0.7, calibrated=0.45)
    supported = [document(PAGE, CONFIRMS, undecided, judgement(Verdict.SUPPORTS, 0.95, calibrated=0.93))]
    assert decide(supported, [], has_candidates=True)[0] is Outcome.SUPPORTED
    assert decide([document(PAGE, CONFIRMS, undecided)], ["web search failed: HTTP 500"],
                  has_candidates=True) == (Outcome.ERROR, "web search failed: HTTP 500")
    unreadable = [document(PAGE, CONFIRMS, undecided, judgement(Verdict.UNPARSEABLE))]
    assert decide(unreadable, [], has_candidates=True)[0] is Outcome.ERROR
    # Without a calibration the raw support is named.
    outcome, reason = decide([document(PAGE, CONFIRMS, judgement(Verdict.INDICATES, 0.61))], [], has_candidates=True)
    assert outcome is Outcome.UNDECIDED and "best support 0.61" in reason


def test_an_authority_records_contradiction_is_flagged_as_before_with_what_the_documents_said():
    record = Corroboration(Finding.CONTRADICTED, "BnF 169902021: date of birth 1911-03-03")
    supporting = judgement(Verdict.SUPPORTS, 0.97, calibrated=0.95)
    outcome, reason, reference = _decide_all(STATEMENT, Plan(), record, [document(OTHER, CONFIRMS, supporting)], [])
    assert (outcome, reference) == (Outcome.CONTRADICTED, None)
    assert reason == ("an authority record states another value: BnF 169902021: date of birth 1911-03-03; the "
                      "documents: supported (1 supporting paragraph(s) in 1 document(s))")
    outcome, reason, _ = _decide_all(STATEMENT, Plan(source="kg"), record, [], [])
    assert outcome is Outcome.CONTRADICTED
    assert reason == "an authority record states another value: BnF 169902021: date of birth 1911-03-03"


def test_a_record_that_corroborates_is_proposed_unless_a_page_read_beside_it_gives_another_value():
    stated = StatedIn("Q36578", "Integrated Authority File", "P227", "GND ID", "1099020801", date(2026, 11, 25),
                      "https://d-nb.example/gnd/1099020801/about/lds.ttl")
    record = Corroboration(Finding.CORROBORATED, "GND 1099020801: date of birth 1912-03-03", reference=stated)
    assert _decide_all(STATEMENT, Plan(), record, [], []) == (
        Outcome.CORROBORATED, "an authority record states it: GND 1099020801: date of birth 1912-03-03", stated)
    outcome, reason, reference = _decide_all(STATEMENT, Plan(all_sources=True), record,
                                             [document(PAGE, BORN, contradicting())], [])
    assert outcome is Outcome.CONTRADICTED and reference is None
    assert reason.startswith(f'{PAGE} gives another value: "3 March 1921"')
    assert reason.endswith("; yet an authority record states it: GND 1099020801: date of birth 1912-03-03")


def test_a_supported_statement_still_gets_its_reference():
    supporting = judgement(Verdict.SUPPORTS, 0.97, calibrated=0.95, written="date", form="3 March 1912")
    outcome, _, reference = _decide_all(STATEMENT, Plan(), None, [document(OTHER, CONFIRMS, supporting)], [])
    assert outcome is Outcome.SUPPORTED and isinstance(reference, ProposedReference) and reference.url == OTHER
