from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.options import load_options


def test_file_then_environment_then_command_line(tmp_path):
    config = tmp_path / "refbot.ini"
    config.write_text("[judge]\nbackend = openai\nurl = http://127.0.0.1:1/v1\ntimeout = 5\n"
                      "[refbot]\ntemplate = paper\n")
    environ = {"REFBOT_JUDGE_URL": "http://127.0.0.1:2/v1", "REFBOT_JUSTIFY": "yes"}
    options = load_options(config, environ, {"judge_timeout": 9.0, "template": None})
    assert options.judge.backend == "openai"
    assert options.judge.url == "http://127.0.0.1:2/v1"
    assert options.judge.timeout == 9.0
    assert options.judge.template == "paper"
    assert options.judge.justify is True  # off by default, on from the environment


def test_secrets_never_appear_in_what_is_recorded(tmp_path):
    empty = tmp_path / "empty.ini"
    empty.write_text("")
    options = load_options(empty, {"OPENAI_API_KEY": "sk-secret"})
    assert options.judge.api_key == "sk-secret"
    assert "sk-secret" not in str(options.public()) and "sk-secret" not in repr(options)


@pytest.mark.parametrize("text, message", [
    ("[judge]\nbogus = 1\n", "unknown key"),
    ("[judge]\ntimeout = soon\n", "expects a float"),
    ("not ini at all", "not valid INI"),
])
def test_bad_configuration_is_named(tmp_path, text, message):
    config = tmp_path / "refbot.ini"
    config.write_text(text)
    with pytest.raises(ConfigError, match=message):
        load_options(config, {})


def test_a_configuration_file_not_in_utf8_is_named_with_its_line(tmp_path, capsys):
    from bot.cli import main

    config = tmp_path / "refbot.ini"
    config.write_bytes("[fetch]\ndelay = 1\n[refbot]\ncontact = café@example.org\n".encode("latin-1"))
    with pytest.raises(ConfigError, match=r"refbot.ini is not UTF-8 \(line 4\)"):
        load_options(config, {})
    assert main(["--config", str(config), "select", "Q42"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_percent_sign_in_a_value_is_the_values_own(tmp_path):
    config = tmp_path / "refbot.ini"
    config.write_text("[refbot]\ncontact = https://www.wikidata.org/wiki/User:A%C3%A9\n"
                      "[search]\nurl = https://search.example/?a=%(b)s&c=100%\n", encoding="utf-8")
    options = load_options(config, {})
    assert options.contact == "https://www.wikidata.org/wiki/User:A%C3%A9"
    assert options.search.url == "https://search.example/?a=%(b)s&c=100%"


def test_missing_configuration_file_is_an_error():
    with pytest.raises(ConfigError, match="cannot read"):
        load_options(Path("/nonexistent/refbot.ini"), {})


def test_the_configuration_references_example_loads(tmp_path):
    import re

    from conftest import ROOT

    example = re.search(r"```ini\n(.*?)```", (ROOT / "docs" / "configuration.md").read_text(), re.S).group(1)
    config = tmp_path / "refbot.ini"
    config.write_text(example)
    options = load_options(config, {})
    assert options.judge.backend == "openai" and options.judge.timeout == 120.0 and options.judge.justify is False
    assert (options.check.source, options.check.all_sources, options.check.kg_top) == ("all", False, 5)


@pytest.mark.parametrize("override, message", [
    ({"threshold": 1.5}, "between 0 and 1"), ({"judge_in_flight": 0}, "at least 1"),
    ({"judge_timeout": 0.0}, "more than 0"),
    ({"check_source": "graph"}, "is not one of all, both, kg, web, wikipedia"), ({"check_kg_top": 0}, "kg_top"),
    ({"check_kg_records": 0}, "kg_records"),
])
def test_out_of_range_values_are_refused(tmp_path, override, message):
    empty = tmp_path / "empty.ini"
    empty.write_text("")
    with pytest.raises(ConfigError, match=message):
        load_options(empty, {}, override)


def test_selection_settings_from_file_and_environment(tmp_path):
    config = tmp_path / "refbot.ini"
    config.write_text("[refbot]\ncontact = ops@example.org  ; who runs this bot\nlanguages = cs, en, mul\n"
                      "ignored_reference_properties = P143 P4656\n"
                      "[sparql]\nendpoint = qlever\ntimeout = 30\npage_size = 25\n")
    options = load_options(config, {"REFBOT_SPARQL_RETRIES": "5"})
    assert (options.contact, options.languages, options.ignored_reference_properties) == (
        "ops@example.org", ("cs", "en", "mul"), ("P143", "P4656"))
    assert (options.sparql.endpoint, options.sparql.timeout, options.sparql.page_size, options.sparql.retries) == (
        "qlever", 30.0, 25, 5)
    assert options.public()["languages"] == "cs,en,mul"


@pytest.mark.parametrize("override, message", [
    ({"languages": ("English",)}, "not a language code: 'English'"),
    ({"languages": ()}, "at least one language"),
    ({"ignored_reference_properties": ("Q143",)}, "not a property id: 'Q143'"),
    ({"contact": "call me"}, "neither an email address nor an http"),
    ({"sparql_page_size": 0}, "page_size must be at least 1"),
    ({"judge_dtype": "float16"}, "judge dtype must be auto, bfloat16 or float32"),
])
def test_bad_selection_settings_are_refused(tmp_path, override, message):
    empty = tmp_path / "empty.ini"
    empty.write_text("")
    with pytest.raises(ConfigError, match=message):
        load_options(empty, {}, override)


@pytest.mark.parametrize("section, key, value", [
    ("wikidata", "api_url", "http://[::1"), ("sparql", "endpoint", "http://[::1/sparql"),
    ("judge", "url", "http://127.0.0.1:99999/v1"), ("search", "url", "https://user:hunter2@[::1/search"),
])
def test_a_malformed_url_is_a_configuration_error_naming_the_option_and_the_url(tmp_path, section, key, value):
    config = tmp_path / "refbot.ini"
    config.write_text(f"[{section}]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as raised:
        load_options(config, {})
    message = str(raised.value)
    assert message.startswith(f"{section} {key}: not a URL: '{value.replace('user:hunter2@', '')}' (")
    assert f"(set [{section}] {key} to a URL such as " in message and "\n" not in message
    assert "hunter2" not in message


def test_a_malformed_url_is_no_wikimedia_host_and_no_traceback():
    from bot.etiquette import is_wikimedia, require_contact

    assert not is_wikimedia("http://[::1") and not is_wikimedia("https://[www.wikidata.org/w/api.php")
    require_contact("http://[::1", "", "the SPARQL endpoint")  # nothing to refuse: it reaches no host


def test_doctor_and_select_name_a_malformed_api_url_in_one_line_and_suggest_no_reinstall(tmp_path, capsys):
    from bot.cli import main

    config = tmp_path / "refbot.ini"
    config.write_text("[refbot]\ncontact = ops@example.org\n[wikidata]\napi_url = http://[::1\n")
    assert main(["--config", str(config), "doctor"]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line[6:].startswith("configuration"))
    assert line.startswith("FAIL") and "wikidata api_url: not a URL: 'http://[::1'" in line
    assert "fix: set [wikidata] api_url to a URL" in line and "reinstall" not in out.lower()

    config.write_text("[refbot]\ncontact = ops@example.org\n")
    assert main(["--config", str(config), "select", "Q1", "--endpoint", "http://[::1/sparql"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("refbot: error: sparql endpoint: not a URL: 'http://[::1/sparql'")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_path_set_empty_in_the_environment_is_its_default_never_the_current_folder(tmp_path):
    from bot.modelstore import default_cache

    empty = tmp_path / "empty.ini"
    empty.write_text("", encoding="utf-8")
    options = load_options(config_file=empty, environ={"REFBOT_MODEL_CACHE": "", "REFBOT_CHECK_REPORTS": " "})
    assert options.judge.model_cache == default_cache() and options.check.reports == Path("reports")
    assert options.judge.model_cache != Path(".")


def test_the_ledger_lives_in_the_reports_folder_named_unless_named_itself(tmp_path):
    empty = tmp_path / "empty.ini"
    empty.write_text("", encoding="utf-8")
    assert load_options(empty, {}, {"check_reports": tmp_path / "elsewhere"}).run.ledger == \
        tmp_path / "elsewhere" / "runs.sqlite"
    assert load_options(empty, {"REFBOT_CHECK_REPORTS": "out"}).run.ledger == Path("out") / "runs.sqlite"
    assert load_options(empty, {}, {"check_reports": tmp_path / "elsewhere", "run_ledger": tmp_path / "l.sqlite"}
                        ).run.ledger == tmp_path / "l.sqlite"
    assert load_options(empty, {}).run.ledger == Path("reports/runs.sqlite")
