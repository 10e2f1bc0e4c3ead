"""`refbot doctor` on a configuration file that holds a secret: readable by other users (0644, the default umask's
mode), it is a warning naming the file, the settings (never their values) and `chmod 600`."""

from __future__ import annotations

import pytest

from bot.cli import main
from bot.doctor import Problem, WARN, config_secrets

SECRET = "s3cret-Hq2w"


@pytest.mark.parametrize("text, named", [
    (f"[run]\nledger = postgresql://refbot:{SECRET}@127.0.0.1:1/refbot\n", "[run] ledger"),
    (f"[judge]\napi_key = {SECRET}\n", "[judge] api_key"),
    (f"[queue]\nprefix = {SECRET}\n", "[queue] prefix"),
    (f"[search]\napi_key = {SECRET}\nurl = https://user:{SECRET}@search.example/\n", "[search] api_key, [search] url"),
])
def test_a_config_file_others_can_read_holding_a_secret_is_a_warning_naming_it_and_chmod_600(tmp_path, text, named):
    ini = tmp_path / "refbot.ini"
    ini.write_text("[refbot]\ncontact = ops@example.org\n" + text, encoding="utf-8")
    for mode in (0o644, 0o640, 0o604):
        ini.chmod(mode)
        with pytest.raises(Problem) as warned:
            config_secrets(ini)
        assert warned.value.state == WARN and warned.value.fix == f"chmod 600 {ini}"
        assert warned.value.detail == f"{ini} holds secrets ({named}) and other users can read it (mode {mode:o})"
    ini.chmod(0o600)
    assert config_secrets(ini) == f"{ini} holds secrets ({named}), readable by its owner only"


def test_a_config_file_without_secrets_may_be_read_by_anyone(tmp_path):
    ini = tmp_path / "refbot.ini"
    ini.write_text("[refbot]\ncontact = ops@example.org\n[run]\nledger = postgresql://refbot@db.example/refbot\n"
                   "[queue]\nbroker = redis://127.0.0.1:1/0\n", encoding="utf-8")
    ini.chmod(0o644)
    assert config_secrets(ini) == f"{ini} holds no password, key or prefix"


def test_refbot_doctor_warns_of_a_readable_config_file_with_a_password_never_showing_it(tmp_path, capsys):
    ini = tmp_path / "refbot.ini"
    ini.write_text(f"[refbot]\ncontact = ops@example.org\n[judge]\nbackend = scripted\n[check]\nembeddings = false\n"
                   f"reports = {tmp_path / 'reports'}\n[run]\nledger = {tmp_path / 'runs.sqlite'}\n"
                   f"[queue]\nprefix = {SECRET}\n", encoding="utf-8")
    ini.chmod(0o644)
    assert main(["--config", str(ini), "doctor"]) == 0, "a warning"
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line[6:].startswith("config secrets"))
    assert line == (f"warn  config secrets       {ini} holds secrets ([queue] prefix) and other users can read it "
                    f"(mode 644) — fix: chmod 600 {ini}")
    assert SECRET not in out
