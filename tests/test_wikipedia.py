"""Wikipedia's cited sources: wbgetentities and a Parsoid article served locally, and real Parsoid samples."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.documents.citations import Citation, chunk_paragraphs, parse_article, revision_of
from bot.checking.items import read_item
from bot.documents.wikipedia import Sitelink, article, official_websites, sitelink
from bot.errors import ConfigError, InputError, ServiceError
from bot.wiring import Wiring
from conftest import SHARED
from documents_world import DOCS, world_options
from servers import Reply, routed

ARTICLE = (DOCS / "article-parsoid.html").read_text(encoding="utf-8")
TITLE_PATH = "Marta_Kubi%C5%A1ov%C3%A1_%28zp%C4%9Bva%C4%8Dka%29"
SLAVIK = Citation("cite_note-slavik-1", "[1]", "https://news.example.org/1968/slavik-vysledky", (),
                  "Výsledky ankety Zlatý slavík 1968", "2019-05-03",
                  "https://web.archive.org/web/20190401000000/https://news.example.org/1968/slavik-vysledky",
                  "2019-04-01", "Výsledky ankety Zlatý slavík 1968. Hudební zpravodaj. [cit. 2019-05-03]. "
                  "Archivováno 1. 4. 2019.")
BOOK = Citation("cite_note-2", "[2]", "http://books.example.com/zakazane-hlasy?page=12",
                ("https://www.worldcat.org/oclc/000000001",), "Zakázané hlasy", "2017-02-11", "", "",
                "Novák, Jan (2001). \"Zakázané hlasy\". Praha: Fiktivní nakladatelství. OCLC 000000001. "
                "Retrieved 11 February 2017.")
CASTLE = Citation("cite_note-hrad-3", "[3]", "https://castle.example.cz/vyznamenani-1990.pdf", (),
                  "Seznam vyznamenaných 1990", "",
                  "https://web.archive.org/web/20100101120000/https://castle.example.cz/vyznamenani-1990.pdf",
                  "2010-01-01", "Seznam vyznamenaných 1990 Archived 1 January 2010 at the Wayback Machine.")
NOTE = Citation("cite_note-pozn-4", "[p 1]", text="Poznámka bez odkazu: řád se tehdy uděloval poprvé po roce 1948.")


def test_paragraphs_keep_their_citations_resolved_structurally():
    paragraphs = parse_article(ARTICLE)
    assert revision_of(ARTICLE) == 24125001
    assert [p.text for p in paragraphs] == [
        "Marta Kubišová (* 1. února 1942 Ostrava) je fiktivní česká zpěvačka, která v roce 1968 získala Zlatého "
        "slavíka. Po roce 1970 nesměla veřejně vystupovat.",
        "V roce 1990 jí prezident udělil Řád Tomáše Garrigua Masaryka, který převzala na Pražském hradě 28. října. "
        "Ocenění bylo zdůvodněno jejím postojem během normalizace.",
        "Tento odstavec nic necituje, ale je dost dlouhý na to, aby byl samostatným odstavcem článku v rámci "
        "testovacích dat."], "hatnote, infobox, navbox, reference list and [citation needed] are left out"
    assert [p.section for p in paragraphs] == ["", "Ocenění", "Ocenění"]
    assert paragraphs[0].citations == (SLAVIK, BOOK)
    assert paragraphs[1].citations == (CASTLE, SLAVIK, NOTE), "a reused citation resolves to the same source"
    assert paragraphs[2].citations == ()
    first = paragraphs[0]
    assert [(note, first.text[:offset].rsplit(" ", 2)[-2:]) for note, offset in first.markers] == [
        ("cite_note-slavik-1", ["Zlatého", "slavíka."]), ("cite_note-2", ["veřejně", "vystupovat."])]


def test_chunks_pack_paragraphs_up_to_the_limit():
    paragraphs = parse_article(ARTICLE)
    assert [c.paragraphs for c in chunk_paragraphs(paragraphs, 10_000)] == [(0, 1, 2)]
    assert [c.paragraphs for c in chunk_paragraphs(paragraphs, 400)] == [(0, 1), (2,)]
    assert [c.paragraphs for c in chunk_paragraphs(paragraphs, 300)] == [(0,), (1, 2)]
    assert all(len(c.text) <= 300 for c in chunk_paragraphs(paragraphs, 300))
    small = chunk_paragraphs(paragraphs, 50)
    assert [c.paragraphs for c in small] == [(0,), (1,), (2,)] and small[1].text == paragraphs[1].text


# wbgetclaims for P856 as the Wikidata API answers it: a current website and a deprecated former one.
CLAIMS = {"Q990100": {"claims": {"P856": [
    {"mainsnak": {"snaktype": "value", "property": "P856", "datatype": "url",
                  "datavalue": {"value": "https://www.martakubisova.example/", "type": "string"}},
     "type": "statement", "id": "Q990100$1", "rank": "normal"},
    {"mainsnak": {"snaktype": "value", "property": "P856", "datatype": "url",
                  "datavalue": {"value": "https://kubisova.example.org/", "type": "string"}},
     "type": "statement", "id": "Q990100$2", "rank": "deprecated"},
    {"mainsnak": {"snaktype": "somevalue", "property": "P856", "datatype": "url"},
     "type": "statement", "id": "Q990100$3", "rank": "normal"}]}},
    "Q990199": {"error": {"code": "no-such-entity", "info": "Could not find an entity with the ID \"Q990199\"."}}}


@pytest.fixture
def wiki(recording_server):
    entity = (DOCS / "item-wbgetentities.json").read_text(encoding="utf-8")
    missing = json.dumps({"entities": {"Q990199": {"id": "Q990199", "missing": ""}}, "success": 1})
    no_link = json.dumps({"entities": {"Q990101": {"type": "item", "id": "Q990101", "sitelinks": {}}}, "success": 1})

    def api(request):
        if request.params["action"] == ["wbgetclaims"]:
            return Reply(200, json.dumps(CLAIMS.get(request.params["entity"][0], {"claims": {}})),
                         {"Content-Type": "application/json"})
        ids = request.params["ids"][0]
        body = {"Q990100": entity, "Q990199": missing, "Q990101": no_link}[ids]
        return Reply(200, body, {"Content-Type": "application/json"})
    recording_server.script = routed({
        "/w/api.php": api,
        f"/rest/cs.wikipedia.org/{TITLE_PATH}": Reply(200, ARTICLE, {"Content-Type": "text/html; charset=utf-8"})})
    return recording_server


def wiki_options(server, **overrides):
    return world_options(wikidata_api_url=server.url + "/w/api.php", wikipedia_wiki="cswiki",
                         wikipedia_article_url=server.url + "/rest/{host}/{title}", **overrides)


def test_the_article_is_found_through_its_sitelink_and_read_at_a_revision(wiki):
    options = wiki_options(wiki)
    client = Wiring(options).services
    link = sitelink(client, options.wikidata.api_url, "Q990100", "cswiki")
    assert link == Sitelink("cswiki", "Marta Kubišová (zpěvačka)",
                            "https://cs.wikipedia.org/wiki/Marta_Kubi%C5%A1ov%C3%A1_(zp%C4%9Bva%C4%8Dka)")
    read = article(client, link, options.wikipedia.article_url, options.wikipedia.chunk_chars)
    assert read.revision == 24125001
    assert read.permalink == f"https://cs.wikipedia.org/w/index.php?title={TITLE_PATH}&oldid=24125001"
    assert read.paragraphs[1].citations == (CASTLE, SLAVIK, NOTE) and len(read.chunks) == 1
    api_request, page_request = wiki.requests
    assert api_request.params == {"action": ["wbgetentities"], "ids": ["Q990100"], "props": ["info|sitelinks/urls"],
                                  "sitefilter": ["cswiki"], "format": ["json"], "formatversion": ["2"]}
    assert page_request.path == f"/rest/cs.wikipedia.org/{TITLE_PATH}"


def test_an_items_official_websites_are_read_and_a_failing_lookup_loses_nothing_else(wiki):
    options = wiki_options(wiki)
    client = Wiring(options).services
    assert official_websites(client, options.wikidata.api_url, "Q990100") == ("https://www.martakubisova.example/",)
    assert official_websites(client, options.wikidata.api_url, "Q990101") == ()
    with pytest.raises(ServiceError, match="official websites of Q990199"):
        official_websites(client, options.wikidata.api_url, "Q990199")
    context = read_item(client, options.wikidata.api_url, "Q990100", "Marta Kubišová", wiki="cswiki",
                        article_url=options.wikipedia.article_url, chunk_chars=10_000)
    assert context.websites == ("https://www.martakubisova.example/",) and context.article is not None
    entity = json.dumps({"entities": {"Q990101": {"id": "Q990101", "lastrevid": 7, "sitelinks": {}}}})

    def claims_down(request):
        if request.params["action"] == ["wbgetclaims"]:
            return Reply(500, "down")
        return Reply(200, entity, {"Content-Type": "application/json"})
    wiki.script = routed({"/w/api.php": claims_down})
    context = read_item(client, options.wikidata.api_url, "Q990101", "x", wiki="cswiki",
                        article_url=options.wikipedia.article_url, chunk_chars=10_000)
    assert (context.revision, context.websites, context.error) == (7, (), "")


def test_missing_items_and_items_without_an_article(wiki):
    options = wiki_options(wiki)
    client = Wiring(options).services
    with pytest.raises(InputError, match="Q990199 does not exist on Wikidata"):
        sitelink(client, options.wikidata.api_url, "Q990199", "cswiki")
    assert sitelink(client, options.wikidata.api_url, "Q990101", "cswiki") is None


def test_wikimedia_hosts_need_a_contact_before_any_request():
    options = world_options(contact="")
    client = Wiring(options).services
    with pytest.raises(ConfigError, match="without a contact"):
        sitelink(client, "https://www.wikidata.org/w/api.php", "Q42", "enwiki")


def test_refbot_sources_lists_the_cited_urls_per_paragraph(wiki, capsys):
    args = ["sources", "Q990100", "--wiki", "cswiki", "--contact", "tester@example.org", "--no-cache",
            "--allow-address", "127.0.0.1"]
    config = DOCS.parent / "sources-test.ini"
    config.write_text(f"[wikidata]\napi_url = {wiki.url}/w/api.php\n[wikipedia]\n"
                      f"article_url = {wiki.url}/rest/{{host}}/{{title}}\n", encoding="utf-8")
    try:
        assert main(["--config", str(config)] + args) == 0
        out = capsys.readouterr().out
        assert out.splitlines()[0] == (f"Q990100 → Marta Kubišová (zpěvačka) (cswiki), revision 24125001: "
                                       f"https://cs.wikipedia.org/w/index.php?title={TITLE_PATH}&oldid=24125001")
        assert "   [3] https://castle.example.cz/vyznamenani-1990.pdf — “Seznam vyznamenaných 1990”; archived " \
               "https://web.archive.org/web/20100101120000/https://castle.example.cz/vyznamenani-1990.pdf on " \
               "2010-01-01" in out
        assert "   [2] http://books.example.com/zakazane-hlasy?page=12 — “Zakázané hlasy”; accessed 2017-02-11" in out
        assert "Tento odstavec" not in out and "refbot: 2 of 3 paragraph(s) cite 3 URL(s); 1 chunk(s)" in out
        assert main(["--config", str(config)] + args + ["--json", "--all"]) == 0
        lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [line["position"] for line in lines] == [0, 1, 2]
        assert lines[0]["citations"][0]["archive_url"] == SLAVIK.archive_url and lines[0]["revision"] == 24125001
    finally:
        config.unlink()


DOG = SHARED / "fixtures" / "wikipedia_html" / "mobileapps" / "Dog.html"
CAT = SHARED / "fixtures" / "wikipedia_html" / "mobileapps" / "parse_contents_en.html"
UNITED_STATES = SHARED / "fixtures" / "wikipedia_html" / "mobileapps" / "United_States.html"


@pytest.mark.skipif(not DOG.exists(), reason="needs ../shared/fixtures (real Parsoid samples)")
def test_real_parsoid_and_legacy_articles_resolve_their_citations():
    html = DOG.read_text(encoding="utf-8")
    assert revision_of(html) == 845493773
    paragraphs = parse_article(html)
    cited = {c.note: c for p in paragraphs for c in p.citations}
    assert len(paragraphs) > 80 and sum(1 for p in paragraphs if p.citations) > 80
    assert cited["cite_note-21"].url == "http://www.scientificamerican.com/article/different-dog-breeds-same-species/"
    assert cited["cite_note-21"].archive_url.startswith("https://web.archive.org/web/20161010110745/")
    assert cited["cite_note-21"].archive_date == "2016-10-10"
    assert cited["cite_note-latimes-20"].title == ("Scientists find key 'friendliness' genes that distinguish dogs "
                                                   "from wolves")
    striped = cited["cite_note-Striped-136"]
    assert (striped.url, striped.title, striped.access_date, striped.archive_date) == (
        "http://www.hyaena.ge/striped.htm", "Striped Hyaena Hyaena (Hyaena) hyaena (Linnaeus, 1758)", "2008-05-21",
        "2007-09-28"), "the template's title, not the wikitext or the 'the original' link"
    assert not any("cite_note" in p.text for p in paragraphs)
    states = {c.note: c for p in parse_article(UNITED_STATES.read_text(encoding="utf-8")) for c in p.citations}
    several = states["cite_note-30"]  # three works in one footnote: the access date belongs to the third
    assert several.url == "https://books.google.com/books?id=wQHlrIz4gpYC&pg=PA61" and several.access_date == ""
    assert states["cite_note-173"].title == "Why did Japan surrender in World War II? | The Japan Times"
    legacy = parse_article(CAT.read_text(encoding="utf-8"))
    assert sum(1 for p in legacy if any(c.url for c in p.citations)) > 50
    mead = {c.note: c for p in legacy for c in p.citations}["cite_note-Mead_1982_183–186-143"]
    assert mead.url == "https://doi.org/10.1111%2Fj.1365-2907.1982.tb00014.x", "percent-encoded note ids resolve"


def test_the_articles_revision_link_keeps_the_scheme_of_the_wiki_it_was_read_from():
    """A mirror or a local wiki served over http: its revision link is http too, not a link that cannot open."""
    from bot.documents.wikipedia import Article

    local = Sitelink("enwiki", "Marta Novotná", "http://127.0.0.1:8081/wiki/Marta_Novotn%C3%A1")
    assert Article(local, 7, (), ()).permalink == \
        "http://127.0.0.1:8081/w/index.php?title=Marta_Novotn%C3%A1&oldid=7"
    public = Sitelink("cswiki", "Marta Kubišová", "https://cs.wikipedia.org/wiki/Marta_Kubi%C5%A1ov%C3%A1")
    assert Article(public, None, (), ()).permalink.startswith("https://cs.wikipedia.org/w/index.php?title=")
