"""The demo world's Wikidata API (bot/demo/wikibase.py): pywikibot itself logs in to it with a BotPassword, reads an
item and adds a reference; its items are the SPARQL store's statements; its checks and faults answer as Wikibase.

pywikibot runs in a subprocess: it reads PYWIKIBOT_DIR (a user-config.py and a family file written here) and
sys.argv when it is imported, and keeps state in that directory. Everything stays on 127.0.0.1: the script refuses
any other connection and reports the attempts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import requests
import rdflib

from bot.demo.wikibase import Account
from bot.demo.world import DATA, DemoWorld
from bot.options import load_options
from bot.review.service import make_service
from bot.review.store import ReviewLedger
from bot.ledger.ledger import RunLedger

STATEMENT = "Q990201$FD23D3AF-2C9B-4A49-A6AB-C6A9F40FEBC2"  # Marta Novotná, award received: Purkyně Prize
URL = "https://chronicle.example/2021/06/novotna-prize.html"
WD = "http://www.wikidata.org/entity/"
P = "http://www.wikidata.org/prop/"

FAMILY = """from pywikibot import family


class Family(family.DefaultWikibaseFamily):
    name = 'refbotdemo'
    langs = {{'wikidata': '127.0.0.1:{port}'}}

    def protocol(self, code):
        return 'http'

    def scriptpath(self, code):
        return '/w'
"""
USER_CONFIG = """family = 'refbotdemo'
mylang = 'wikidata'
usernames['refbotdemo']['wikidata'] = {user!r}
password_file = 'user-password.py'
user_agent_description = 'refbot tests'
put_throttle = 0
minthrottle = 0
maxthrottle = 1
max_retries = 1
retry_wait = 1
retry_max = 1
socket_timeout = (3.05, 10)
"""
# Logs in, reads the item, adds a reference of four snaks (their datatypes asked of the repository) to one
# statement, and prints what it saw as JSON.
SCRIPT = """import json
import sys
from pathlib import Path

blocked = []


def loopback_only(event, args):
    if event == 'socket.connect' and isinstance(args[1], tuple) and args[1][0] != '127.0.0.1':
        blocked.append(str(args[1]))
        raise ConnectionRefusedError('only 127.0.0.1')
    if event == 'socket.getaddrinfo' and args[0] not in ('127.0.0.1', b'127.0.0.1', None):
        blocked.append(str(args[0]))
        raise OSError('no name lookups')


sys.addaudithook(loopback_only)
job = json.loads(Path(__file__).with_name('job.json').read_text())
sys.argv = sys.argv[:1]
import pywikibot  # noqa: E402

site = pywikibot.Site('wikidata', 'refbotdemo')
try:
    site.login()
except pywikibot.exceptions.Error as error:
    print(json.dumps({'error': type(error).__name__, 'message': str(error), 'blocked': blocked}))
    sys.exit(0)
repo = site.data_repository()
item = pywikibot.ItemPage(repo, job['item'])
item.get()
before = item.latest_revision_id
claim = next(c for claims in item.claims.values() for c in claims if c.snak == job['statement'])
snaks = []
for pid, value in [('P854', job['url']),
                   ('P813', pywikibot.WbTime(2026, 11, 23, precision='day', site=repo)),
                   ('P1476', pywikibot.WbMonolingualText('Novotná wins the Purkyně Prize', 'en')),
                   ('P407', pywikibot.ItemPage(repo, 'Q9056'))]:
    snak = pywikibot.Claim(repo, pid, is_reference=True)
    snak.setTarget(value)
    snaks.append(snak)
claim.addSources(snaks, bot=True, summary='refbot: add a reference')
print(json.dumps({'user': site.user(), 'bot': site.has_right('bot'), 'repo_is_site': repo == site,
                  'label': item.labels['en'], 'value': claim.getTarget().id, 'before': before,
                  'after': item.latest_revision_id, 'hash': snaks[0].hash, 'blocked': blocked}))
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A world the tests only read."""
    with DemoWorld(workdir=tmp_path_factory.mktemp("store")) as running:
        yield running


@pytest.fixture
def own_world(tmp_path):
    """A world of the test's own, to write to."""
    with DemoWorld(workdir=tmp_path, accounts={"Human": Account({"tool": "human-secret"}, groups=())}) as running:
        yield running


def api(world: DemoWorld) -> str:
    return f"{world.base('wikidata')}/w/api.php"


def run_pywikibot(world: DemoWorld, directory: Path, password: str, **job: str) -> dict:
    """Run the script with pywikibot configured for the world's API; what it printed."""
    config = directory / "pywikibot"
    (config / "families").mkdir(parents=True)
    (config / "families" / "refbotdemo_family.py").write_text(FAMILY.format(port=world.ports["wikidata"]))
    (config / "user-config.py").write_text(USER_CONFIG.format(user=world.bot_user))
    (config / "user-password.py").write_text(f"({world.bot_user!r}, BotPassword({world.bot_password_name!r}, "
                                             f"{password!r}))\n")
    (directory / "job.json").write_text(json.dumps(job))
    (directory / "script.py").write_text(SCRIPT)
    env = {**os.environ, "PYWIKIBOT_DIR": str(config), "HOME": str(directory)}
    env.pop("PYWIKIBOT_NO_USER_CONFIG", None)
    done = subprocess.run([sys.executable, str(directory / "script.py")], cwd=directory, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def entity(world: DemoWorld, item: str) -> dict:
    return requests.get(api(world), params={"action": "wbgetentities", "ids": item, "format": "json"},
                        timeout=10).json()["entities"][item]


def claim_of(item: dict, guid: str) -> dict:
    return next(c for claims in item["claims"].values() for c in claims if c["id"] == guid)


def test_pywikibot_logs_in_with_a_bot_password_and_adds_a_reference(own_world, tmp_path):
    world = own_world
    revision = entity(world, "Q990201")["lastrevid"]
    mark = len(world.requests)
    result = run_pywikibot(world, tmp_path, world.bot_password, item="Q990201", statement=STATEMENT, url=URL)
    assert result["blocked"] == [], "nothing but 127.0.0.1 was reached"
    assert (result["user"], result["bot"], result["repo_is_site"]) == ("RefbotDemo", True, True)
    assert (result["label"], result["value"], result["before"]) == ("Marta Novotná", "Q990211", revision)
    assert result["after"] > revision

    sent = world.requests[mark:]
    assert {(r.site, r.path, r.method) for r in sent} == {("wikidata", "/w/api.php", "POST")}, "all posted over http"
    (login,) = [r.params for r in sent if r.params.get("action") == "login"]
    assert (login["lgname"], login["lgpassword"]) == ("RefbotDemo@refbot", "(hidden)")
    assert not any(world.bot_password in json.dumps(r.params) for r in world.requests), "no password recorded"
    (write,) = [r.params for r in sent if r.params.get("action") == "wbsetreference"]
    assert (write["statement"], write["baserevid"], write["maxlag"], write["assert"], write["bot"]) == (
        STATEMENT, str(revision), "5", "user", "")
    assert write["summary"] == "refbot: add a reference"
    assert any("tokens" in r.params.get("meta", "") for r in sent)
    assert write["token"].endswith("+\\") and write["token"] != "+\\", "the session's own csrf token"
    snaks = json.loads(write["snaks"])
    assert list(snaks) == ["P854", "P813", "P1476", "P407"]
    assert snaks["P854"][0]["datavalue"] == {"value": URL, "type": "string"}
    # The reference properties' datatypes were asked of the repository, as pywikibot does without datatype=.
    asked = [r.params["ids"] for r in sent if r.params.get("action") == "wbgetentities"]
    assert {"P854", "P813", "P1476", "P407"} <= set(asked)

    after = entity(world, "Q990201")
    assert after["lastrevid"] == result["after"] > revision
    (reference,) = claim_of(after, STATEMENT)["references"]
    assert reference["hash"] == result["hash"] and reference["snaks-order"] == ["P854", "P813", "P1476", "P407"]
    assert reference["snaks"]["P854"][0]["datavalue"]["value"] == URL
    assert reference["snaks"]["P813"][0]["datavalue"]["value"]["time"] == "+2026-11-23T00:00:00Z"
    assert reference["snaks"]["P407"][0]["datavalue"]["value"]["id"] == "Q9056"
    assert claim_of(after, "Q990201$E3079FD3-74F2-4226-A9F1-CA27692B5767").get("references") is None
    last = world.wikibase.revisions[-1]
    assert (last.revid, last.user, last.statement, last.bot) == (result["after"], "RefbotDemo", STATEMENT, True)


def test_pywikibot_fails_to_log_in_with_a_wrong_password(world, tmp_path):
    result = run_pywikibot(world, tmp_path, "not-the-password", item="Q990201", statement=STATEMENT, url=URL)
    assert result["error"] == "NoUsernameError"
    assert "Incorrect username or password entered" in result["message"]
    assert not any(r.params.get("action") == "wbsetreference" for r in world.requests)


def rdf_value(value: rdflib.term.Node) -> str | Decimal:
    """A ps: value as the test compares it: an entity's id, a decimal, a date, a string."""
    if isinstance(value, rdflib.URIRef) and str(value).startswith(WD):
        return str(value)[len(WD):]
    if isinstance(value, rdflib.Literal) and value.datatype == rdflib.XSD.decimal:
        return Decimal(str(value))
    return str(value)[:10] if isinstance(value, rdflib.Literal) and value.datatype == rdflib.XSD.dateTime \
        else str(value)


def json_value(datavalue: dict) -> str | Decimal:
    value = datavalue["value"]
    if datavalue["type"] == "wikibase-entityid":
        return value["id"]
    if datavalue["type"] == "quantity":
        return Decimal(value["amount"])
    if datavalue["type"] == "time":  # year or month precision writes 00 for what it leaves out; the RDF 01
        return value["time"][1:11].replace("-00", "-01")
    return value


def test_the_items_claims_are_the_stores_statements(world):
    graph = rdflib.Graph().parse(DATA / "world.ttl", format="turtle")
    statements = {}
    for subject, predicate, node in graph:
        if str(subject).startswith(WD + "Q") and str(predicate).startswith(P + "P"):
            pid = str(predicate)[len(P):]
            value = graph.value(node, rdflib.URIRef(f"{P}statement/{pid}"))
            guid = "$".join(str(node).rsplit("/", 1)[-1].split("-", 1))
            statements[guid] = (str(subject)[len(WD):], pid, rdf_value(value))
    assert len(statements) >= 17
    items = {item: entity(world, item) for item in {item for item, _, _ in statements.values()}}
    for guid, (item, pid, value) in statements.items():
        claim = next((c for c in items[item]["claims"].get(pid, []) if c["id"] == guid), None)
        assert claim is not None, guid
        assert (claim["mainsnak"]["property"], json_value(claim["mainsnak"]["datavalue"])) == (pid, value), guid
        assert claim["rank"] == "normal" and claim["type"] == "statement"
    # Items keep what entities.json adds: revisions, sitelinks, the orchestra's official website.
    assert items["Q990201"]["lastrevid"] == 2301234567
    assert items["Q990201"]["sitelinks"]["enwiki"]["title"] == "Marta Novotná"
    assert claim_of(items["Q990205"], "Q990205$22E41FE2-DF11-44ED-A4E7-437F1DCDC752")["mainsnak"]["datatype"] == "url"
    # A stored reference, the full values of times and quantities, and the datatypes of the reference properties.
    (stated,) = claim_of(items["Q990202"], "Q990202$F5EA97D7-9DFA-414E-B59C-991A93BADE29")["references"]
    assert stated["hash"] == "fcdf9f8eac07aa4932ac7e2209a267a7e208b08f" and stated["snaks-order"] == ["P248", "P813"]
    assert stated["snaks"]["P813"][0]["datavalue"]["value"]["time"] == "+2020-01-15T00:00:00Z"
    founded = claim_of(items["Q990205"], "Q990205$B4BC003C-158E-43DD-9D9B-62B07AB53F9B")["mainsnak"]["datavalue"]
    assert founded["value"] == {"time": "+1994-00-00T00:00:00Z", "timezone": 0, "before": 0, "after": 0,
                                "precision": 9, "calendarmodel": WD + "Q1985727"}
    length = claim_of(items["Q990206"], "Q990206$F26A747F-D7CA-4ABF-A90F-4B220EDE8299")["mainsnak"]["datavalue"]
    assert length["value"] == {"amount": "+271", "unit": WD + "Q11573"}
    people = claim_of(items["Q990207"], "Q990207$6817B70B-A25D-4E24-93A9-8623B5E932D6")["mainsnak"]["datavalue"]
    assert people["value"] == {"amount": "+12480", "unit": "1"}
    answer = requests.get(api(world), params={"action": "wbgetentities", "ids": "P854|P813|P1476|P407|P1065|P2960|"
                                              "P1683|P166|P2043", "props": "datatype", "format": "json"},
                          timeout=10).json()
    assert {pid: e["datatype"] for pid, e in answer["entities"].items()} == {
        "P854": "url", "P813": "time", "P1476": "monolingualtext", "P407": "wikibase-item", "P1065": "url",
        "P2960": "time", "P1683": "monolingualtext", "P166": "wikibase-item", "P2043": "quantity"}
    # What refbot itself reads keeps its shape.
    info = requests.get(api(world), params={"action": "wbgetentities", "ids": "Q990201", "props": "info|sitelinks/urls",
                                            "sitefilter": "enwiki", "format": "json", "formatversion": "2"},
                        timeout=10).json()["entities"]["Q990201"]
    assert info["lastrevid"] == 2301234567 and "claims" not in info
    assert info["sitelinks"]["enwiki"]["url"] == f"{world.base('wikipedia')}/wiki/Marta_Novotn%C3%A1"
    websites = requests.get(api(world), params={"action": "wbgetclaims", "entity": "Q990205", "property": "P856",
                                                "format": "json"}, timeout=10).json()
    assert [c["mainsnak"]["datavalue"]["value"] for c in websites["claims"]["P856"]] == [world.base("hko") + "/"]


def logged_in(world: DemoWorld, user: str, name: str, password: str) -> tuple[requests.Session, str]:
    """A session logged in as ``user@name``, and its csrf token."""
    session = requests.Session()
    token = session.get(api(world), params={"action": "query", "meta": "tokens", "type": "login", "format": "json"},
                        timeout=10).json()["query"]["tokens"]["logintoken"]
    login = session.post(api(world), data={"action": "login", "lgname": f"{user}@{name}", "lgpassword": password,
                                           "lgtoken": token, "format": "json"}, timeout=10).json()
    assert login["login"]["result"] == "Success", login
    csrf = session.get(api(world), params={"action": "query", "meta": "tokens", "format": "json"},
                       timeout=10).json()["query"]["tokens"]["csrftoken"]
    return session, csrf


def test_writes_are_checked_as_wikibase_checks_them_and_faults_can_be_queued(own_world):
    world = own_world
    wikibase = world.wikibase
    session, csrf = logged_in(world, world.bot_user, world.bot_password_name, world.bot_password)
    base = entity(world, "Q990201")["lastrevid"]
    snaks = json.dumps({"P854": [{"snaktype": "value", "property": "P854",
                                  "datavalue": {"value": URL, "type": "string"}}]})

    def write(statement: str = STATEMENT, *, http: requests.Session = session, **extra: str) -> dict:
        data = {"action": "wbsetreference", "statement": statement, "snaks": snaks, "baserevid": str(base),
                "token": csrf, "assert": "bot", "format": "json", **extra}
        return http.post(api(world), data=data, timeout=10).json()

    def code(answer: dict) -> str:
        return answer.get("error", {}).get("code", "")

    assert code(write(token="+\\")) == "badtoken"
    # MediaWiki checks the token before the assertion: a logged-out client's old token is refused as a token.
    assert code(write(http=requests.Session())) == "badtoken"
    assert code(write(http=requests.Session(), token="+\\")) == "assertbotfailed"
    assert code(write("Q990201$00000000-0000-0000-0000-000000000000")) == "no-such-claim"
    assert code(write(snaks='{"P854": [{"snaktype": "value", "property": "P854", "datavalue": '
                            '{"value": {"time": "+2026-01-01T00:00:00Z"}, "type": "time"}}]}')) == "modification-failed"
    # Another statement's change leaves this one's base revision good; its own change makes it stale.
    wikibase.change_value("Q990201$E3079FD3-74F2-4226-A9F1-CA27692B5767",
                          {"entity-type": "item", "numeric-id": 990213, "id": "Q990213"})
    first = write()
    assert first["success"] == 1 and first["pageinfo"]["lastrevid"] > base
    assert code(write()) == "editconflict", "the statement changed after the base revision"
    assert "success" in write(baserevid=str(first["pageinfo"]["lastrevid"]))

    wikibase.inject("wbsetreference", "maxlag")
    lagged = session.post(api(world), data={"action": "wbsetreference", "format": "json"}, timeout=10)
    assert code(lagged.json()) == "maxlag" and lagged.headers["Retry-After"] == "1"
    wikibase.inject("wbsetreference", "failed-save")
    assert [m["name"] for m in write()["error"]["messages"]] == ["wikibase-api-failed-save", "abusefilter-disallowed"]
    wikibase.inject("wbsetreference", status=429, retry_after=3)
    limited = session.post(api(world), data={"action": "wbsetreference"}, timeout=10)
    assert limited.status_code == 429 and limited.headers["Retry-After"] == "3"

    # A test's edits: a reference already there, a value changed, a statement gone.
    other = "Q990201$C02516BA-149F-4F9A-B1EE-CA96C86C2934"
    wikibase.add_reference(other, URL)
    stored = claim_of(entity(world, "Q990201"), other)["references"][0]
    assert stored["snaks"]["P854"][0]["datavalue"]["value"] == URL
    assert claim_of(entity(world, "Q990201"), "Q990201$E3079FD3-74F2-4226-A9F1-CA27692B5767")["mainsnak"][
        "datavalue"]["value"]["id"] == "Q990213"
    wikibase.remove_statement(other)
    assert all(c["id"] != other for c in entity(world, "Q990201")["claims"].get("P69", []))
    assert code(write(other, baserevid=str(entity(world, "Q990201")["lastrevid"]))) == "no-such-claim"

    # A user without the bot group may write, but not assert to be a bot; a blocked one may not write.
    human, human_csrf = logged_in(world, "Human", "tool", "human-secret")
    userinfo = human.get(api(world), params={"action": "query", "meta": "userinfo", "uiprop": "rights|groups",
                                             "formatversion": "2", "format": "json"}, timeout=10).json()
    assert userinfo["query"]["userinfo"]["name"] == "Human" and "bot" not in userinfo["query"]["userinfo"]["rights"]
    assert code(write(http=human, token=human_csrf)) == "assertbotfailed"
    assert "success" in write(http=human, token=human_csrf, **{"assert": "user"},
                              baserevid=str(entity(world, "Q990201")["lastrevid"]))
    wikibase.accounts["Human"] = Account({"tool": "human-secret"}, groups=(), blocked=True)
    assert code(write(http=human, token=human_csrf, **{"assert": "user"})) == "blocked"

    # Writes must be posted; a body the API cannot read is refused; the session ends.
    assert code(session.get(api(world), params={"action": "wbsetreference", "format": "json"},
                            timeout=10).json()) == "mustbeposted"
    assert session.post(api(world), data=b"{}", headers={"Content-Type": "application/json"},
                        timeout=10).status_code == 400
    multipart = session.post(api(world), files={"action": (None, "query"), "meta": (None, "userinfo"),
                                                "format": (None, "json")}, timeout=10).json()
    assert multipart["query"]["userinfo"]["name"] == "RefbotDemo"
    wikibase.end_sessions()
    assert code(write()) == "badtoken"
    assert [r.method for r in world.requests if r.params.get("meta") == "userinfo"][-1] == "POST"


def _children(pid: int) -> list[int]:
    """The processes `pid` started, read from /proc; a thread or child that ends while it is read is skipped."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except FileNotFoundError:  # the thread ended between the listing and the read
            continue
        found += [int(child) for child in children]
    return found


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text()
    except FileNotFoundError:  # the process ended after it was listed
        return ""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGKILL"])
def test_refbot_demo_serve_stopped_leaves_no_sparql_server_behind(tmp_path, stop):
    import signal
    import time

    environ = {key: value for key, value in os.environ.items() if not key.startswith("REFBOT_")}
    environ |= {"TMPDIR": str(tmp_path), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    config = tmp_path / "refbot.ini"
    demo = subprocess.Popen([sys.executable, "-m", "bot.cli", "demo", "--serve"], cwd=tmp_path, env=environ,
                            stdout=config.open("w"), stderr=subprocess.PIPE, text=True)  # `… > refbot.ini`
    try:
        printed = []
        for line in demo.stderr:
            printed.append(line)
            if line.startswith("export REFBOT_SERVICE_SECRET_KEY="):
                break
        assert config.read_text(encoding="utf-8").startswith("["), "standard output is the configuration alone"
        secret = next(line.split("=", 1)[1].strip() for line in printed if "REFBOT_SERVICE_CLIENT_SECRET=" in line)
        served = load_options(config, environ={"REFBOT_SERVICE_CLIENT_SECRET": secret,
                                               "REFBOT_SERVICE_SECRET_KEY": "k" * 32})
        assert served.service.url == "http://127.0.0.1:8000" and served.service.client_id
        sessions = ReviewLedger(RunLedger(tmp_path / "sessions.sqlite"))
        login = make_service(served, sessions).test_client().get("/login")
        sessions.ledger.close()
        authorize = requests.get(login.headers["Location"], timeout=10)
        assert authorize.status_code == 200 and "wpName1" in authorize.text, "the demo's provider knows the consumer"
        assert "The application <b>refbot review service</b> would like to" in authorize.text, "by name, not an id"
        assert any("sign in as 'Demo Curator', password " in line for line in printed)
        servers = [child for child in _children(demo.pid) if "oxigraph" in _command_line(child)]
        assert servers and list(tmp_path.glob("refbot-demo-store-*"))
        demo.send_signal(getattr(signal, stop))
        demo.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(_alive(pid) for pid in servers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in servers), "Oxigraph outlived the demo"
        if stop == "SIGTERM":
            assert demo.returncode == 0
            assert not list(tmp_path.glob("refbot-demo-store-*")), "the store directory was left behind"
    finally:
        if demo.poll() is None:
            demo.kill()
