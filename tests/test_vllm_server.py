"""`refbot serve-judge`'s parts that need no vLLM: the command line it starts vLLM with, where it finds vLLM, and
how it waits for and stops a server process (real processes, not vLLM)."""

from __future__ import annotations

import configparser
import json
import sys
import time
from pathlib import Path

import pytest
import requests

from bot.cli import main
from bot.errors import ConfigError, JudgeError
from bot.judge import vllm_server
from bot.judge.vllm_server import ServerSpec
from conftest import free_port


def spec(**changes) -> ServerSpec:
    values = dict(python=Path("/opt/venv-vllm/bin/python"), model=Path("/models/judge/transformers-bf16"),
                  name="qwen2.5-coder-1.5b", port=8011, context=4096)
    values.update(changes)
    return ServerSpec(**values)


def flags(argv: list[str]) -> dict[str, str]:
    """``--flag value`` pairs; a flag without a value maps to ""."""
    found: dict[str, str] = {}
    for n, word in enumerate(argv):
        if word.startswith("-"):
            following = argv[n + 1] if n + 1 < len(argv) else ""
            found[word] = "" if following.startswith("-") else following
    return found


def test_the_server_is_started_with_the_flags_refbot_relies_on():
    argv = spec().argv()
    assert argv[:3] == ["/opt/venv-vllm/bin/python", "-m", "vllm.entrypoints.openai.api_server"]
    given = flags(argv)
    assert given["--model"] == "/models/judge/transformers-bf16"
    assert given["--served-model-name"] == "qwen2.5-coder-1.5b", "the trace and the calibration name the model"
    assert (given["--host"], given["--port"], given["--max-model-len"]) == ("127.0.0.1", "8011", "4096")
    assert "--enable-prefix-caching" in given and "--enable-prompt-tokens-details" in given
    assert given["--max-logprobs"] == "20", "refbot reads the answer's top 20 log-probabilities"
    assert given["--generation-config"] == "vllm", "the model's own sampling defaults are not applied"
    assert given["--block-size"] == "32"
    assert given["--dtype"] == vllm_server.cpu_dtype()
    assert flags(spec(dtype="bfloat16").argv())["--dtype"] == "bfloat16"
    assert "--enforce-eager" not in given


@pytest.mark.parametrize(("flags_line", "dtype"), [
    ("fpu sse2 avx2 fma avx512f avx512_bf16", "bfloat16"),
    ("fpu sse2 avx2 fma amx_bf16 amx_tile", "bfloat16"),
    ("fpu sse2 avx2 fma avx512f avx512bw", "float32"),
    ("fpu sse2 avx2 fma", "float32"),
])
def test_a_cpu_server_takes_bf16_only_where_the_cpu_multiplies_it_natively(tmp_path, flags_line, dtype):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags_line}\n\n", encoding="utf-8")
    assert vllm_server.cpu_dtype(cpuinfo) == dtype
    assert vllm_server.cpu_dtype(tmp_path / "missing") == "float32"


def test_a_gpu_server_keeps_vllms_defaults_and_eager_skips_compilation():
    given = flags(spec(device="cuda").argv())
    assert "--dtype" not in given and "--block-size" not in given
    eager = spec(eager=True).argv()
    assert "--enforce-eager" in eager and "-O0" in eager


def test_the_environment_is_offline_and_sizes_the_cpu_kv_cache():
    environment = spec(kv_cache_gib=3).environment({"PATH": "/usr/bin", "HF_HUB_OFFLINE": "0"})
    assert environment["PATH"] == "/usr/bin"
    assert (environment["HF_HUB_OFFLINE"], environment["VLLM_NO_USAGE_STATS"]) == ("1", "1")
    assert environment["VLLM_CPU_KVCACHE_SPACE"] == "3"
    assert "VLLM_CPU_KVCACHE_SPACE" not in spec(device="cuda").environment({})


def test_the_judge_lines_point_refbot_at_the_server():
    printed = configparser.ConfigParser()
    printed.read_string(spec(in_flight=8).judge_lines())
    assert dict(printed["judge"]) == {"backend": "openai", "url": "http://127.0.0.1:8011/v1",
                                      "model": "qwen2.5-coder-1.5b", "context": "4096", "in_flight": "8"}


def test_the_vllm_python_is_looked_for_where_setup_puts_it(tmp_path):
    python = tmp_path / "python"
    python.write_text("")
    assert vllm_server.find_python(str(python), {}) == python
    assert vllm_server.find_python(None, {"REFBOT_VLLM_PYTHON": str(python)}) == python
    with pytest.raises(ConfigError, match=r"--vllm-python: no Python at .*missing") as raised:
        vllm_server.find_python(str(tmp_path / "missing"), {})
    assert "scripts/setup --vllm" in raised.value.hint


def test_a_gguf_file_is_refused_with_the_command_that_converts_it(tmp_path):
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    with pytest.raises(ConfigError, match="transformers directory") as raised:
        vllm_server.model_directory(gguf, "smollm2-135m")
    assert "refbot models fetch smollm2-135m --transformers" in raised.value.hint
    (tmp_path / "config.json").write_text("{}")
    assert vllm_server.model_directory(tmp_path, "x") == tmp_path


def test_serve_judge_without_a_vllm_environment_says_how_to_make_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REFBOT_VLLM_PYTHON", str(tmp_path / "nowhere" / "python"))
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    assert main(["serve-judge", "--model", str(model), "--port", str(free_port())]) == 2
    error = capsys.readouterr().err
    assert "REFBOT_VLLM_PYTHON: no Python at" in error and "scripts/setup --vllm" in error


def _server_script(tmp_path: Path, body: str) -> ServerSpec:
    """A stand-in 'python' that runs ``body`` with the spec's arguments (real processes, no vLLM)."""
    script = tmp_path / "python"
    script.write_text(f"#!{sys.executable}\nimport sys, time, os\n{body}\n")
    script.chmod(0o755)
    return spec(python=script, model=tmp_path, port=free_port())


def test_a_server_that_dies_at_start_is_named_with_its_logs_error(tmp_path):
    served = _server_script(tmp_path, "print('INFO loading'); print('ValueError: out of memory for the KV cache')"
                                      "; sys.exit(3)")
    log_path = tmp_path / "vllm.log"
    with open(log_path, "wb") as log:
        process = vllm_server.start(served, log=log, environ={})
    with pytest.raises(JudgeError, match=r"exit status 3 .*ValueError: out of memory for the KV cache") as raised:
        vllm_server.wait_ready(process, served, requests.Session(), timeout_s=30, log_path=log_path, poll_s=0.05)
    assert str(log_path) in str(raised.value)


def test_stop_ends_the_server_and_the_processes_it_started(tmp_path):
    # the stand-in starts a child (as vLLM starts its engine), then waits: both must be gone after stop
    served = _server_script(tmp_path, "import subprocess\nchild = subprocess.Popen(['sleep', '300'])\n"
                                      "open(sys.argv[0] + '.child', 'w').write(str(child.pid))\ntime.sleep(300)")
    with open(tmp_path / "vllm.log", "wb") as log:
        process = vllm_server.start(served, log=log, environ={})
    deadline = time.monotonic() + 20
    child_file = Path(str(served.python) + ".child")
    while not child_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    child = int(child_file.read_text())
    assert vllm_server.stop(process, grace_s=5) == -15
    time.sleep(0.2)
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]


def test_a_server_that_never_answers_is_stopped_after_the_timeout(tmp_path):
    served = _server_script(tmp_path, "time.sleep(300)")
    with open(tmp_path / "vllm.log", "wb") as log:
        process = vllm_server.start(served, log=log, environ={})
    with pytest.raises(JudgeError, match=r"did not serve qwen2.5-coder-1.5b .* within 1 s") as raised:
        vllm_server.wait_ready(process, served, requests.Session(), timeout_s=1, poll_s=0.05)
    assert "--eager" in raised.value.hint
    assert process.poll() is not None, "stopped, not left running"


def test_serve_judge_beyond_this_machine_needs_an_api_key(tmp_path, monkeypatch, capsys):
    for name in ("REFBOT_JUDGE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    assert main(["serve-judge", "--model", str(model), "--host", "0.0.0.0", "--port", str(free_port())]) == 2
    error = capsys.readouterr().err
    assert "--host 0.0.0.0 would serve the model beyond this machine" in error and "REFBOT_JUDGE_API_KEY" in error
    assert vllm_server.is_loopback("127.0.0.1") and vllm_server.is_loopback("::1")
    assert vllm_server.is_loopback("localhost") and not vllm_server.is_loopback("192.168.1.20")


SERVES_WITH_A_KEY = """
import http.server, json
port, name = int(sys.argv[sys.argv.index('--port') + 1]), sys.argv[sys.argv.index('--served-model-name') + 1]
key = os.environ.get('VLLM_API_KEY', '')
open(sys.argv[0] + '.seen', 'w').write(json.dumps({'key': key, 'argv': sys.argv}))

class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if not key or self.headers.get('Authorization') != 'Bearer ' + key:
            self.send_response(401); self.end_headers(); return
        body = json.dumps({'data': [{'id': name}]}).encode()
        self.send_response(200); self.send_header('Content-Type', 'application/json'); self.end_headers()
        self.wfile.write(body)
        self.server.answered = True
    def log_message(self, *args):
        pass

server = http.server.HTTPServer(('127.0.0.1', port), Handler)
server.answered = False
while not server.answered:
    server.handle_request()
time.sleep(1)
"""


def test_an_api_key_reaches_vllm_in_its_environment_and_serve_judge_waits_with_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("REFBOT_JUDGE_API_KEY", "s3cret-key")
    python = _server_script(tmp_path, SERVES_WITH_A_KEY).python
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    code = main(["serve-judge", "--vllm-python", str(python), "--model", str(model), "--port", str(free_port()),
                 "--ready-timeout", "60", "--log", str(tmp_path / "vllm.log"), "--device", "cpu"])
    captured = capsys.readouterr()
    assert f"starting vLLM (cpu, {vllm_server.cpu_dtype()}) for model on http://127.0.0.1:" in captured.err
    assert "[judge]" in captured.out and "url = http://127.0.0.1:" in captured.out, captured.err
    assert "s3cret-key" not in captured.out + captured.err, "the key is never printed"
    seen = json.loads(Path(str(python) + ".seen").read_text())
    assert seen["key"] == "s3cret-key" and "s3cret-key" not in " ".join(seen["argv"])
    assert code == 1 and "vLLM stopped on its own" in captured.err  # the stand-in ends once it has answered
