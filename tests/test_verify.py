"""`refbot verify` on a world of real parts: the Oxigraph store holding statements with their references, the cited
pages and the Wayback stand-in on loopback (``verify_world``). The judge's model is scripted (it says yes to any
paragraph it is asked about, and a relation is the one whose words the text writes): what is tested is what verify
does with pages — dead, moved, "not found", paywalled, script-only, another value — not the model."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rdflib import Graph, URIRef

from bot.judge.scripted import ScriptedBackend
from bot.options import Options, ini_text
from bot.output import trace as traces
from bot.output.run_trace import verify_trace, write_run
from bot.ledger.ledger import RunLedger
from bot.selection.worklists import Worklist
from bot.verifying import export
from bot.verifying.records import Finding
from bot.verify_run import VerifyRun
from bot.wiring import Wiring
from conftest import ROOT
from verify_world import EXPECTED, ITEMS, SNAPSHOT_MOVED, SNAPSHOT_RIGHT, start

ARTIFACTS = ROOT / "reports" / "test-artifacts"

NS = {"t": traces.NS}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    running = start(tmp_path_factory.mktemp("verify-world"))
    yield running
    running.stop()


def read_off(prefix: str, continuation: str) -> list[float]:
    """A relation's words as a reader of the text weighs them: a word the text does not write is unlikely."""
    return [0.0 if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", prefix, re.IGNORECASE) else -3.0
            for word in continuation.split()]


def options_for(world, tmp_path: Path, **extra) -> Options:
    return Options.flat(**world.options(), check_reports=tmp_path / "reports", run_ledger=tmp_path / "runs.sqlite",
                        check_workers=1, check_embeddings=False, **extra)


def parts_for(world, tmp_path: Path, support: object = 0.95, **extra) -> Wiring:
    return Wiring(options_for(world, tmp_path, **extra), backend=ScriptedBackend(support=support, logprobs=read_off))


def verified(parts: Wiring, items=ITEMS, **worklist):
    with RunLedger(parts.options.run.ledger) as ledger, \
            VerifyRun.open(parts, Worklist.of_items(list(items), **worklist), ledger) as run:
        result = run.verify()
        tree = verify_trace(result, ledger, parts)
    return run, result, tree


@pytest.fixture(scope="module")
def verified_world(world, tmp_path_factory):
    """One run over both items, shared by the tests that read what it found."""
    folder = tmp_path_factory.mktemp("verified")
    parts = parts_for(world, folder)
    run, result, tree = verified(parts)
    xml, html = write_run(tree, folder / "reports" / f"verify-{run.id}")
    return parts, run, result, xml, html


def by_hash(result) -> dict:
    return {check.citation.hash: check for check in result.checked}


def test_each_reference_ends_with_the_finding_its_page_gives(verified_world):
    _, _, result, _, _ = verified_world
    found = {key: check.finding.value for key, check in by_hash(result).items()}
    assert found == EXPECTED
    assert result.complete and result.failure is None
    assert result.counts == {"supports": 2, "does-not-support": 1, "contradicts": 1, "dead-archived": 2,
                             "dead-no-archive": 2, "unreadable": 2}


def test_a_supporting_page_is_quoted_and_another_value_is_named_with_its_sentence(verified_world):
    checks = by_hash(verified_world[2])
    supports = checks["a1" * 20]
    assert supports.sentence == "Jana Dvořáková was born on 2 May 1961 in Olomouc."
    assert supports.best.judgement.supported and supports.read_url.endswith("/people/dvorakova.html")
    contradicts = checks["b1" * 20]
    assert contradicts.other_value == "3 March 1948"
    assert contradicts.sentence == "Pavel Horák was born on 3 March 1948 in Zlín."
    identifier = checks["a3" * 20]
    assert identifier.citation.via == "P8901" and identifier.citation.identifier == "dvorakova-61"
    assert identifier.citation.stated_in == "Q990420" and identifier.citation.url.endswith("/id/dvorakova-61.html")
    assert identifier.finding is Finding.SUPPORTS


def test_a_dead_page_is_read_from_the_snapshot_closest_before_its_retrieved_date(verified_world, world):
    checks = by_hash(verified_world[2])
    dead = checks["a4" * 20]  # retrieved 2019-06-01: snapshots of 2015 and of 2019-05-20
    used = dead.document.retrieved.used
    assert used.archive_timestamp == SNAPSHOT_RIGHT and dead.document.retrieved.live.status == 404
    assert "HTTP 404" in dead.reason and dead.archived is not None
    assert "Palacký University" in dead.document.retrieved.paragraphs[0].text
    asked = [request for request in world.requests if request.site == "archive"
             and request.path == "/wayback/available" and "gone.html" in request.query["url"][0]]
    assert asked and asked[0].query["timestamp"] == ["20190601"]


def test_a_moved_page_and_a_not_found_page_are_dead_whatever_their_status(verified_world):
    checks = by_hash(verified_world[2])
    moved = checks["a7" * 20]  # 301 to the front page
    assert moved.finding is Finding.DEAD_ARCHIVED and "home page" in moved.reason
    assert moved.document.retrieved.used.archive_timestamp == SNAPSHOT_MOVED
    soft = checks["a6" * 20]  # "Page not found" with status 200, no snapshot
    assert soft.finding is Finding.DEAD_NO_ARCHIVE and soft.document.retrieved.live.status == 200
    assert 'its title says it is not there ("Page not found")' in soft.reason
    assert not soft.document.judged, "a not-found page's own words are never judged"
    vanished = checks["a5" * 20]  # a host that refuses connections
    assert vanished.finding is Finding.DEAD_NO_ARCHIVE and "no archived copy" in vanished.reason


def test_a_paywall_and_a_page_made_by_script_are_unreadable_not_unsupported(verified_world):
    checks = by_hash(verified_world[2])
    assert checks["a8" * 20].finding is Finding.UNREADABLE and "403" in checks["a8" * 20].reason
    assert checks["a9" * 20].finding is Finding.UNREADABLE and "almost no text" in checks["a9" * 20].reason


def test_the_trace_is_valid_and_the_report_lists_the_contradiction_first(verified_world):
    _, run, result, xml, html = verified_world
    tree = traces.read(xml)  # validated against the schema
    run_element = tree.find("t:run", NS)
    assert run_element.get("mode") == "verify"
    summary = run_element.find("t:summary", NS)
    assert summary.get("references") == "10" and summary.get("statements") == "9"
    assert summary.get("contradicts") == "1" and summary.get("dead-archived") == "2"
    elements = tree.findall("t:item/t:verification", NS)
    assert {element.get("reference"): element.get("outcome") for element in elements} == EXPECTED
    dead = next(element for element in elements if element.get("reference") == "a4" * 20)
    assert dead.find("t:cited", NS).get("retrieved") == "2019-06-01"
    assert dead.find("t:document", NS).get("archive-timestamp") == SNAPSHOT_RIGHT
    page = html.read_text(encoding="utf-8")
    assert page.index("References that give another value") < page.index("References verified")
    rows = page.split('class="reference-row" data-outcome="')[1:]
    assert [row.split('"')[0] for row in rows][:2] == ["contradicts", "dead-archived"]
    assert "3 March 1948" in page


def test_findings_export_as_json_lines_and_as_rdf_with_wikidatas_iris(verified_world):
    parts, run, _, _, _ = verified_world
    with RunLedger(parts.options.run.ledger) as ledger:
        found = export.recorded(ledger, run.id)
    assert len(found) == 10
    lines = [json.loads(line) for line in export.jsonl(found).splitlines()]
    contradiction = next(line for line in lines if line["reference"] == "b1" * 20)
    assert contradiction["statement"] == "Q990402$0B000001-0000-4000-8000-000000000001"
    assert contradiction["finding"] == "contradicts" and contradiction["other_value"] == "3 March 1948"
    assert contradiction["checked"] and contradiction["support"] is not None
    graph = Graph().parse(data=export.turtle(found), format="turtle")
    dead = set(graph.query("""
        PREFIX refbot: <https://www.wikidata.org/wiki/Wikidata:refbot/verify#>
        SELECT ?statement ?reference WHERE { ?check refbot:finding refbot:dead-archived ;
          refbot:statement ?statement ; refbot:reference ?reference . }"""))
    assert (URIRef("http://www.wikidata.org/entity/statement/Q990401-0A000004-0000-4000-8000-000000000004"),
            URIRef("http://www.wikidata.org/reference/" + "a4" * 20)) in dead


def test_a_run_resumes_with_what_it_has_left_and_the_ledger_keeps_each_reference_once(world, tmp_path):
    parts = parts_for(world, tmp_path)
    worklist = Worklist.of_items(list(ITEMS))
    with RunLedger(parts.options.run.ledger) as ledger, VerifyRun.open(parts, worklist, ledger) as run:
        todo = [citation.key for _, citation in run.todo]
        result = run.verify(time_budget=0)
    assert len(todo) == 10 and result.left == 10 and result.checked == ()
    # Sites in turn: the first references of the gazette, the journal and the vanished host are not all one site's.
    hosts = [citation.url.split("/")[2] for _, citation in run.todo]
    assert len(set(hosts[:3])) == 3
    with RunLedger(parts.options.run.ledger) as ledger, VerifyRun.open(parts, worklist, ledger) as again:
        assert again.id == run.id and again.resumed and [c.key for _, c in again.todo] == todo
        finished = again.verify()
    assert finished.complete and len(finished.checked) == 10
    with sqlite3.connect(parts.options.run.ledger) as db:
        keys = [row[0] for row in db.execute("SELECT guid FROM checks WHERE run_id = ?", (run.id,))]
    assert sorted(keys) == sorted(todo)
    with RunLedger(parts.options.run.ledger) as ledger, VerifyRun.open(parts, worklist, ledger) as later:
        assert later.id != run.id and later.todo == [] and later.skipped == 10  # verified recently


def test_refbots_own_failure_is_an_error_finding_never_the_pages(world, tmp_path):
    def broken(prompt: str) -> float:
        if "Zlín" in prompt:
            raise KeyError("a bug in refbot's judge")
        return 0.95

    _, result, _ = verified(parts_for(world, tmp_path, support=broken), items=["Q990402"])
    check, = result.checked
    assert check.finding is Finding.ERROR and check.fault is not None and "KeyError" in check.reason


def test_refbot_verify_on_the_command_line_prints_each_finding_and_exports(world, tmp_path):
    config = tmp_path / "refbot.ini"
    config.write_text(ini_text({**world.options(), "check_reports": tmp_path / "reports",
                                "run_ledger": tmp_path / "runs.sqlite", "check_embeddings": False}), encoding="utf-8")
    command = [sys.executable, "-m", "bot.cli", "--config", str(config)]
    done = subprocess.run([*command, "verify", "Q990402", "Q990401", "--judge", "scripted", "--property", "P569"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "verify run 1: 3 reference(s) verified; 2 supports, 1 contradicts" in out
    assert out.index("contradicts") < out.index("  supports")
    assert 'Q990402 date of birth → 1950-01-10' in out and 'gives "3 March 1948"' in out
    assert "ProVe score -1.00" in out and "ProVe score +1.00" in out
    assert (tmp_path / "reports" / "verify-1.html").is_file()
    exported = subprocess.run([*command, "export", "--run", "1", "--jsonl"], capture_output=True, text=True,
                              timeout=120)
    assert exported.returncode == 0, exported.stderr
    written = tmp_path / "reports" / "verify-1.jsonl"
    assert "3 reference(s) written" in exported.stdout
    assert len(written.read_text(encoding="utf-8").splitlines()) == 3
    bad = subprocess.run([*command, "verify", "--domain", "example.org", "Q990401"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode != 0 and "--domain narrows a property's worklist" in bad.stderr


# -- the fixes: proposed for review, exported, applied once --------------------------------------------------------

def refbot(config: Path, *args: str, password: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("REFBOT_", "PYWIKIBOT"))}
    environ["PYTHONPATH"] = str(ROOT)
    if password is not None:
        environ["REFBOT_APPLY_PASSWORD"] = password
    return subprocess.run([sys.executable, "-m", "bot.cli", "--config", str(config), *args], cwd=config.parent,
                          capture_output=True, text=True, timeout=timeout, env=environ)


def write_config(world, folder: Path, **extra) -> Path:
    config = folder / "refbot.ini"
    config.write_text(ini_text({**world.options(), "check_reports": folder / "reports",
                                "run_ledger": folder / "runs.sqlite", "check_embeddings": False,
                                "apply_user": world.bot_login, "apply_edit_delay": 0,
                                "apply_pywikibot_dir": folder / "pywikibot", **extra}), encoding="utf-8")
    return config


def test_a_dead_pages_archived_copy_is_added_to_its_own_reference_once_never_beside_it(tmp_path):
    world = start(tmp_path / "world")
    try:
        config = write_config(world, tmp_path)
        guid = "Q990401$0A000004-0000-4000-8000-000000000004"
        before = world.wikibase.statement(guid)["references"]
        assert [reference["hash"] for reference in before] == ["a4" * 20]
        done = refbot(config, "verify", "Q990401", "--property", "P108", "--judge", "scripted")
        assert done.returncode == 0, done.stderr
        assert "1 dead-archived" in done.stdout and "1 fix(es) proposed" in done.stderr

        exported = refbot(config, "export", "--run", "1", "--quickstatements")
        assert exported.returncode == 1 and "0 command(s) written" in exported.stdout
        assert "QuickStatements cannot add snaks to an existing reference" in exported.stderr

        approved = refbot(config, "approve", "--run", "1", f"{guid}#{'a4' * 20}", "--curator", "Ada")
        assert approved.returncode == 0, approved.stderr
        simulated = refbot(config, "apply", "--dry-run")
        assert f"add to reference {'a4' * 20} of {guid}" in simulated.stdout, simulated.stdout
        applied = refbot(config, "apply", "--live", password=world.bot_password)
        assert applied.returncode == 0, applied.stderr + applied.stdout
        sent = [r.params for r in world.requests if r.site == "wikidata" and r.params.get("action") == "wbsetreference"]
        assert len(sent) == 1 and sent[0]["reference"] == "a4" * 20 and sent[0]["statement"] == guid
        snaks = json.loads(sent[0]["snaks"])
        assert list(snaks)[-2:] == ["P1065", "P2960"] and set(snaks) == {"P854", "P813", "P1065", "P2960"}, \
            "the reference's own snaks kept, the copy added after them"
        assert snaks["P1065"][0]["datavalue"]["value"].endswith(f"/web/{SNAPSHOT_RIGHT}/"
                                                                f"{world.base('gazette')}/people/gone.html")
        assert snaks["P2960"][0]["datavalue"]["value"]["time"] == "+2019-05-20T00:00:00Z"
        after = world.wikibase.statement(guid)["references"]
        assert len(after) == 1, "added to the reference, never a second one beside it"
        assert {"P854", "P813", "P1065", "P2960"} == set(after[0]["snaks"])

        again = refbot(config, "apply", "--live", password=world.bot_password)
        assert again.returncode == 0
        assert len([r for r in world.requests if r.params.get("action") == "wbsetreference"]) == 1, "written once"
    finally:
        world.stop()


def test_a_statement_no_reference_supports_gets_one_found_beside_them(world, tmp_path):
    parts = parts_for(world, tmp_path, check_source="web")
    with RunLedger(parts.options.run.ledger) as ledger, \
            VerifyRun.open(parts, Worklist.of_items(["Q990401"], properties=["P19"]), ledger,
                           find_support=True) as run:
        result = run.verify()
        tree = verify_trace(result, ledger, parts)
    assert [check.finding for check in result.checked] == [Finding.DOES_NOT_SUPPORT]
    found, = run.supported_by_check
    assert found.outcome.value == "supported" and found.reference.url.endswith("/people/dvorakova.html")
    assert found.quickstatements.startswith("Q990401\tP19\tQ990412\tS854\t")
    items = tree.findall("t:item", NS)
    assert [element.tag for element in items[0]] == [traces.tag("statement"), traces.tag("verification")]
    traces.validate(tree)
    from bot.review.actions import export_quickstatements
    from bot.review.store import ReviewLedger, keep_for_review

    with RunLedger(parts.options.run.ledger) as ledger:
        keep_for_review(ledger, run.id, tree)
        chosen, left_out, trimmed = export_quickstatements(ReviewLedger(ledger), run.id, tmp_path / "qs.tsv",
                                                           approved_only=False)
    assert [proposal.key for proposal in chosen] == ["Q990401$0A000002-0000-4000-8000-000000000002"]
    assert not left_out and not trimmed
    line, = (tmp_path / "qs.tsv").read_text(encoding="utf-8").splitlines()
    assert line.startswith("Q990401\tP19\tQ990412\tS854\t") and "/people/dvorakova.html" in line, \
        "a new reference beside the statement's own, which QuickStatements adds"


def test_two_workers_verify_a_worklist_as_one_process_does(world, redis_server, tmp_path):
    items = tmp_path / "items.txt"
    items.write_text("\n".join(ITEMS) + "\n", encoding="utf-8")
    common = {"judge_backend": "scripted", "fetch_delay": 0.2}
    (tmp_path / "alone").mkdir()
    alone = write_config(world, tmp_path / "alone", **common)
    single = refbot(alone, "verify", "--items", str(items))
    assert single.returncode == 0, single.stderr
    expected = findings_of(Path(re.search(r"^trace: (.+)$", single.stdout, re.M).group(1)))
    assert expected == EXPECTED

    (tmp_path / "shared").mkdir()
    shared = write_config(world, tmp_path / "shared", queue_broker=redis_server.url("3"), **common)
    enqueued = refbot(shared, "verify", "--enqueue", "--items", str(items))
    assert enqueued.returncode == 0, enqueued.stderr
    run_id = int(re.match(r"run (\d+) \(new\): 2 item\(s\), 2 left; 2 task\(s\) sent", enqueued.stdout).group(1))
    logs = [tmp_path / "shared" / f"worker-{n}.log" for n in (1, 2)]
    workers = [subprocess.Popen([sys.executable, "-m", "bot.cli", "--config", str(shared), "worker", "--name",
                                 f"w{n}"], cwd=tmp_path / "shared", stdout=log.open("w"), stderr=subprocess.STDOUT,
                                env={**{k: v for k, v in os.environ.items() if not k.startswith("REFBOT_")},
                                     "PYTHONPATH": str(ROOT)})
               for n, log in zip((1, 2), logs)]
    try:
        ledger = RunLedger(tmp_path / "shared" / "runs.sqlite")
        deadline = time.monotonic() + 300
        while not ledger.run_finished(ledger.run(run_id)):
            assert time.monotonic() < deadline, "\n".join(log.read_text()[-2000:] for log in logs)
            for process, log in zip(workers, logs):
                assert process.poll() is None, log.read_text()[-3000:]
            time.sleep(0.3)
        ledger.close()
    finally:
        for process in workers:
            process.terminate()
        for process in workers:
            process.wait(timeout=60)
    report = refbot(shared, "report", "--run", str(run_id))
    assert report.returncode == 0, report.stderr
    xml = Path(re.search(r"^trace: (.+)$", report.stdout, re.M).group(1))
    assert traces.read(xml).find("t:run", NS).get("mode") == "verify"
    assert findings_of(xml) == expected, "the findings one process records"


def findings_of(xml: Path) -> dict[str, str]:
    tree = traces.read(xml)
    return {element.get("reference"): element.get("outcome") for element in tree.iterfind("t:item/t:verification", NS)}


# -- worklists, and the pure parts ---------------------------------------------------------------------------------

def test_a_propertys_worklist_on_one_domain_selects_its_references_to_that_domain(world):
    from dataclasses import replace as changed

    from bot.selection.unsourced import SelectionRules
    from bot.verifying.selection import select_cited

    endpoint = Wiring(Options.flat(**world.options())).require_endpoint()
    worklist = Worklist.for_property("P569")
    found = [(entry.statement.item, citation.hash) for selection in select_cited(endpoint, worklist, SelectionRules())
             for entry in selection.cited for citation in entry.citations]
    assert found == [("Q990401", "a1" * 20), ("Q990401", "a3" * 20), ("Q990402", "b1" * 20)]
    on_loopback = [citation.hash for selection in select_cited(endpoint, changed(worklist, domain="127.0.0.1"),
                                                               SelectionRules(), page_size=1)
                   for entry in selection.cited for citation in entry.citations]
    assert on_loopback == [hash for _, hash in found], "every page of the world is on 127.0.0.1, a page at a time"
    elsewhere = list(select_cited(endpoint, changed(worklist, domain="example.org"), SelectionRules()))
    assert not any(selection.cited for selection in elsewhere)


@pytest.mark.parametrize("requested, final, title, heading, gone", [
    ("https://a.org/news/2019/obit.html", "https://a.org/news/2019/obit.html", "Obituary: Pavel Horák", "", ""),
    ("https://a.org/news/2019/obit.html", "https://a.org/index.php", "A news", "", "front page"),
    ("https://a.org/news/2019/obit.html", "https://a.org/news", "News", "", "higher in the site"),
    ("https://a.org/news/2019/obit.html", "https://a.org/news/2019/obit/", "Obituary", "", ""),
    ("https://a.org/", "https://a.org/index.html", "A news", "", ""),
    ("https://a.org/p/1", "https://a.org/p/1", "404 - Page Not Found | A news", "", "title says"),
    ("https://a.org/p/1", "https://a.org/p/1", "A news", "Sorry, this page does not exist", "heading says"),
    ("https://a.org/p/1", "https://a.org/p/1", "Seite nicht gefunden", "", "title says"),
    ("https://a.org/p/1", "https://a.org/p/1", "A news", "404: this page does not exist", "heading says"),
    ("https://a.org/p/1", "https://a.org/p/1", "A news", "Sorry, the page you requested could not be found",
     "heading says"),
    ("https://a.org/p/1", "https://a.org/p/1", "A news", "We couldn't find the page you were looking for",
     "heading says"),
    ("https://a.org/p/1", "https://a.org/p/1", "A news", "The page you are looking for: Brno's archives", ""),
    ("https://a.org/p/1", "https://a.org/p/1", "A news", "Why we cannot find the right page in old registers", ""),
    ("https://a.org/p/1", "https://a.org/p/1", "Not Found (album) by The Losts, reviewed by our critics in the "
     "long-form review section of the weekend edition", "", ""),
    ("https://a.org/p/1", "https://a.org/p/1", "Found objects: an exhibition", "", ""),
])
def test_a_page_that_answered_is_gone_when_it_moved_up_its_site_or_says_it_is_not_found(requested, final, title,
                                                                                        heading, gone):
    from bot.documents.gone import gone as why

    reason = why(requested, final, title, heading)
    assert (gone in reason) if gone else reason == "", reason


def test_citations_fold_a_references_rows_into_one_naming_its_page():
    from bot.selection.endpoint import Term
    from bot.selection.unsourced import guid_of
    from bot.verifying.citations import build_citations

    statement = Term("http://www.wikidata.org/entity/statement/Q1-ABC")
    reference = Term("http://www.wikidata.org/reference/ff00")
    rows = [{"statement": statement, "reference": reference, "url": Term("https://b.org/2", "uri")},
            {"statement": statement, "reference": reference, "url": Term("https://a.org/1", "uri")},
            {"statement": statement, "reference": reference,
             "retrieved": Term("2020-02-03T00:00:00Z", "literal")},
            {"statement": statement, "reference": Term("http://www.wikidata.org/reference/0a"),
             "identifierProperty": Term("http://www.wikidata.org/entity/P214"), "identifier": Term("113230702"),
             "formatter": Term("https://viaf.org/viaf/$1/")},
            {"statement": statement, "reference": Term("http://www.wikidata.org/reference/0b"),
             "statedIn": Term("http://www.wikidata.org/entity/Q36578")}]
    citations = build_citations(rows, guid_of)["Q1$ABC"]
    assert [(c.hash, c.url, c.via, c.retrieved and c.retrieved.isoformat()) for c in citations] == [
        ("0a", "https://viaf.org/viaf/113230702/", "P214", None), ("ff00", "https://a.org/1", "P854", "2020-02-03")]


def test_references_are_taken_site_by_site_in_turn():
    from bot.datamodel import Statement, Value
    from bot.verifying.citations import Citation
    from bot.verify_run import alternate_hosts

    statement = Statement("Q1", "One", "Q1$A", "P569", "date of birth", Value("time", "+1961", "1961"))
    urls = ["https://a.org/1", "https://a.org/2", "https://a.org/3", "https://b.org/1", "https://c.org/1",
            "https://b.org/2"]
    ordered = alternate_hosts([(statement, Citation("Q1$A", str(n), url)) for n, url in enumerate(urls)])
    assert [citation.url for _, citation in ordered] == [
        "https://a.org/1", "https://b.org/1", "https://c.org/1", "https://a.org/2", "https://b.org/2",
        "https://a.org/3"]


def test_the_review_queue_shows_the_archive_fix_and_the_contradiction(verified_world):
    from lxml import etree
    import requests

    from bot.review.queue import cards
    from bot.review.store import ReviewLedger, keep_for_review
    from test_review_browser import start_server

    parts, run, result, _, _ = verified_world
    with RunLedger(parts.options.run.ledger) as ledger:
        keep_for_review(ledger, run.id, verify_trace(result, ledger, parts))
        every = {card.guid: card for card in cards(ReviewLedger(ledger).trace(run.id).getroot())}
    fix = every[f"Q990401$0A000004-0000-4000-8000-000000000004#{'a4' * 20}"]
    assert fix.kind == "archive" and fix.state == "proposed"
    assert [snak.property_id for snak in fix.snaks] == ["P1065", "P2960"] and fix.snaks[1].text == "2019-05-20"
    assert "the reference's page is dead" in fix.source.read
    contradiction = every[f"Q990402$0B000001-0000-4000-8000-000000000001#{'b1' * 20}"]
    assert contradiction.resolvable and "3 March 1948" in contradiction.how
    assert {guid.split("#")[1][:2] for guid in every} == {"a4", "a7", "b1"}, "a card for each fix and contradiction"

    server = start_server(parts.options.replaced(review_curator="Ada"), run.id)
    try:
        token = server.page.split("token=")[1]
        at = fix.guid.replace("$", "%24").replace("#", "%23")
        page = etree.HTML(requests.get(f"{server.url}queue?show=all&at={at}&token={token}", timeout=20).text)
        assert page.xpath("string(//article/@data-guid)") == fix.guid
        assert "Added to the reference the statement has" in page.xpath("string(//div[@class='reference']/h2)")
        assert page.xpath("//button[@id='approve']"), "a curator approves it with one key"
        shown = etree.HTML(requests.get(f"{server.url}queue?show=contradicted&token={token}", timeout=20).text)
        assert "3 March 1948" in shown.xpath("string(//article)")
    finally:
        server.stop()


def test_a_cited_page_is_about_the_subject_only_where_it_names_it_somewhere():
    from bot.checking.judging import Strategy, queue
    from bot.checking.subject_check import CITED
    from bot.datamodel import Paragraph, Statement, Value

    died = Statement("Q1", "Jacques-Nicolas Billaud-Varenne", "Q1$A", "P570", "date of death",
                     Value("time", "+1819-06-03T00:00:00Z/11", "3 June 1819"))
    page = [Paragraph("Jean-Nicolas Billaud-Varenne sat on the Committee of Public Safety.", "u", 0),
            Paragraph("He died on 3 June 1819 in Port-au-Prince.", "u", 1)]
    assert [entry.subject_rule for entry in queue(page, died, Strategy())] == [], "read as any page: not about him"
    assert [entry.subject_rule for entry in queue(page, died, Strategy(), cited=True)] == [CITED]
    ship = Statement("Q2", "HMS Wakeful", "Q2$A", "P2043", "length", Value("quantity", "+44.43U11573", "44.43 metre"))
    renamed = [Paragraph("AEGEAN PELAGOS length overall (LOA) is 44.43 m, beam is 10.65 m.", "u", 0)]
    assert queue(renamed, ship, Strategy(), cited=True) == [], "a page that never names the ship is not about it"


@pytest.mark.parametrize("label, head", [("Park Staromiejski w Łodzi", "Park Staromiejski"),
                                         ("Old Town Hall in Prague", "Old Town Hall"), ("University of Oxford", ""),
                                         ("HMS Wakeful", ""), ("The Presentation of Crimean Medals", ""),
                                         ("Frankfurt am Main", "")])
def test_a_labels_own_words_name_it_without_the_place_it_adds(label, head):
    from bot.checking.subject_check import name_head, named_somewhere

    assert name_head(label) == head
    if head:
        assert named_somewhere(f"{head} lies next to the square.", [label])


def test_approving_all_supported_takes_an_archived_copy_only_where_the_judge_found_it_supports(
        verified_world, tmp_path):
    """A dead page's archived copy is proposed to mend the link whatever it says; `approve --all-supported` takes it
    only when the judge found that the copy supports the statement."""
    import shutil

    from bot.review.actions import chosen_guids
    from bot.review.store import ReviewLedger, keep_for_review

    parts, run, _, xml, _ = verified_world
    tree = traces.read(xml)
    fixes = [element for element in tree.getroot().iter(traces.tag("verification"))
             if element.find(traces.tag("reference")) is not None
             and element.find(traces.tag("reference")).get("kind") == "archive"]
    assert sorted(fix.get("archived") for fix in fixes) == ["does-not-support", "supports"]
    shutil.copy(parts.options.run.ledger, tmp_path / "runs.sqlite")  # the run's ledger, kept for review as
    with RunLedger(tmp_path / "runs.sqlite") as ledger:                # `refbot verify` keeps it
        keep_for_review(ledger, run.id, tree)
        store, run_id = ReviewLedger(ledger), run.id
        proposals = {proposal.key: proposal for proposal in store.proposals(run_id)}
        archived = {key: proposal.archived for key, proposal in proposals.items() if proposal.extends}
        assert sorted(archived.values()) == ["does not support", "supports"]
        chosen = chosen_guids(store, run_id, [], all_supported=True)
    refused = next(key for key, said in archived.items() if said == "does not support")
    assert refused not in chosen and set(archived) - {refused} <= set(chosen)


def test_the_demo_worlds_references_are_audited_in_a_report_that_puts_contradictions_first(tmp_path, browser):
    """`refbot verify Q990401 Q990402` on the demo world (as `refbot demo --serve` serves it): every finding a
    reference can end with, the contradiction first, in the report a curator opens in a browser."""
    from selenium.webdriver.common.by import By

    world = start(tmp_path / "world")
    try:
        config = write_config(world, tmp_path)
        done = refbot(config, "verify", *ITEMS, "--judge", "scripted")
        assert done.returncode == 0, done.stderr
        assert f"verify run 1: {len(EXPECTED)} reference(s) verified" in done.stdout
        html = Path(re.search(r"^report: (.+)$", done.stdout, re.M).group(1))
        assert html.name == "verify-1.html"
        browser.get(html.as_uri())
        rows = browser.find_elements(By.CSS_SELECTOR, "tr.reference-row")
        outcomes = [row.get_attribute("data-outcome") for row in rows]
        assert sorted(outcomes) == sorted(EXPECTED.values()) and outcomes[0] == "contradicts"
        contradiction = browser.find_element(By.CSS_SELECTOR, "li.reference-contradiction").text
        assert "Pavel Horák (Q990402), date of birth" in contradiction and "3 March 1948" in contradiction
        # Its findings exported beside its report, in the folder named, under the verify run's name.
        exported = refbot(config, "export", "--run", "1", "--jsonl", "--reports", str(tmp_path / "elsewhere"))
        assert exported.returncode == 0, exported.stderr
        assert f"written to {tmp_path / 'elsewhere' / 'verify-1.jsonl'}" in exported.stdout
        shot = ARTIFACTS / "verify-demo-report.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
    finally:
        world.stop()


def test_a_findings_line_is_cut_between_words_and_never_inside_a_web_address():
    """The terminal's line is what an operator copies: an archive address in a reason is kept whole."""
    from bot.cli.verifying import shortened

    archive = "https://web.archive.org/web/20200101000000/https://www.example.org/a/long/path/jana-dvorakova.html"
    reason = f"the page is dead (HTTP 404); an archived copy was read at {archive} and states the fact " * 2
    cut = shortened(reason, 80)
    assert archive in cut.split() and cut.endswith(" …") and len(cut) < len(reason)
    assert shortened("a short reason", 160) == "a short reason"
    assert shortened("alpha beta gamma delta", 11) == "alpha beta …"
