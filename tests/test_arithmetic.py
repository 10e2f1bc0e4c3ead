"""The judge's arithmetic follows the CPU: bfloat16 only where the CPU multiplies it natively, float32 elsewhere;
`refbot doctor` and the trace say which and why."""

from __future__ import annotations

import pytest

from bot import doctor
from bot.judge import arithmetic as arithmetics
from bot.judge.arithmetic import arithmetic, cpu_flags
from bot.options import Options
from bot.output import run_trace
from bot.output import trace as traces
from bot.output.report import render

AMX = "fpu sse2 avx2 fma avx512f avx512bw avx512_bf16 amx_bf16 amx_tile"
AVX512 = "fpu sse2 avx2 fma avx512f avx512bw"
AVX2 = "fpu sse2 avx2 fma"


def cpu(tmp_path, flags: str):
    path = tmp_path / "cpuinfo"
    path.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: "
                    f"{flags}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("flags", "dtype", "shown"), [
    (AMX, "bfloat16", "amx_bf16 avx512_bf16 avx512f avx2, native bf16 products"),
    ("fpu avx2 avx512f avx512_bf16", "bfloat16", "avx512_bf16 avx512f avx2, native bf16 products"),
    (AVX512, "float32", "avx512f avx2, no native bf16 products"),
    (AVX2, "float32", "avx2, no native bf16 products"),
    ("fp asimd evtstrm aes crc32", "float32", "no vector flags read, no native bf16 products"),
])
def test_auto_takes_bf16_only_where_the_cpu_multiplies_it_natively(tmp_path, flags, dtype, shown):
    chosen = arithmetic("auto", cpu(tmp_path, flags))
    assert chosen.dtype == dtype
    assert chosen.describe() == f"{dtype} (chosen for this CPU: {shown})"


def test_a_named_arithmetic_is_kept_and_said_to_be_configured(tmp_path):
    assert arithmetic("bfloat16", cpu(tmp_path, AVX2)).describe() == \
        "bfloat16 (as configured: avx2, no native bf16 products)"
    assert arithmetic("float32", cpu(tmp_path, AMX)).dtype == "float32"
    with pytest.raises(ValueError, match="unknown arithmetic 'float16'"):
        arithmetic("float16", cpu(tmp_path, AMX))


def test_an_unreadable_cpuinfo_means_float32(tmp_path):
    assert cpu_flags(tmp_path / "missing") == frozenset()
    assert arithmetic("auto", tmp_path / "missing").dtype == "float32"


def test_doctor_names_the_arithmetic_and_warns_of_bf16_emulated(tmp_path, monkeypatch):
    monkeypatch.setattr(arithmetics, "CPUINFO", cpu(tmp_path, AVX2))
    nothing = Options.flat(model_cache=tmp_path / "no-models")  # no model installed: the CPU alone decides
    assert doctor.judge_arithmetic(nothing) == "float32 (chosen for this CPU: avx2, no native bf16 products)"
    emulated = nothing.replaced(judge_dtype="bfloat16")
    with pytest.raises(doctor.Problem) as raised:
        doctor.judge_arithmetic(emulated)
    assert raised.value.state == doctor.WARN and "six times slower" in raised.value.detail
    assert "dtype = auto" in raised.value.fix
    monkeypatch.setattr(arithmetics, "CPUINFO", cpu(tmp_path, AMX))
    assert doctor.judge_arithmetic(emulated) == "bfloat16 (as configured: amx_bf16 avx512_bf16 avx512f avx2, " \
                                                "native bf16 products)"


def test_the_trace_and_the_report_say_what_the_judge_computed_in(tmp_path):
    said = "float32 (chosen for this CPU: avx2, no native bf16 products)"
    info = traces.RunInfo(mode="check", started="2026-11-21T10:00:00Z", finished="2026-11-21T10:00:05Z",
                          duration_s=5.0, complete=True, judge_backend="transformers",
                          model="qwen2.5-coder-1.5b/transformers-bf16 as float32", template="refbot",
                          prompt_template="[system]\n…", threshold=0.5, strategy="ranked", top=3,
                          embeddings="all-minilm-l6-v2", arithmetic=said)
    tree = traces.assemble(info, [])
    traces.validate(tree)
    run = tree.find(traces.tag("run"))
    assert run.find(traces.tag("judge")).get("arithmetic") == said
    assert run_trace.recorded_info(run).arithmetic == said
    html = render(tree)
    assert "Arithmetic" in html and said in html
    served = traces.assemble(traces.RunInfo(**{**info.__dict__, "arithmetic": "", "judge_backend": "openai"}), [])
    traces.validate(served)
    assert served.find(traces.tag("run")).find(traces.tag("judge")).get("arithmetic") is None


def test_auto_keeps_bf16_where_float32_weights_would_not_fit_the_memory_allowed(tmp_path):
    gib = 1 << 30
    weights = 3_554_214_752  # Qwen2.5-Coder-1.5B's copy in bf16
    small = arithmetic("auto", cpu(tmp_path, AVX2), weights=weights, memory=6 * gib)  # a Toolforge job's most
    assert small.dtype == "bfloat16"
    assert small.describe() == ("bfloat16 (chosen for this CPU: avx2, no native bf16 products; float32 would need "
                                "about 8.0 GiB, this process may use 6.0 GiB)")
    assert arithmetic("auto", cpu(tmp_path, AVX2), weights=weights, memory=24 * gib).dtype == "float32"
    assert arithmetic("auto", cpu(tmp_path, AVX2), weights=0, memory=1 * gib).dtype == "float32"  # size unknown
    assert arithmetic("auto", cpu(tmp_path, AMX), weights=weights, memory=6 * gib).dtype == "bfloat16"
    assert arithmetic("float32", cpu(tmp_path, AVX2), weights=weights, memory=6 * gib).dtype == "float32"


@pytest.mark.parametrize(("v2", "v1", "expected"), [
    ("6442450944\n", None, 6442450944),  # a container's limit (cgroup v2)
    ("max\n", None, 24 * (1 << 30)),  # none: the machine's memory
    (None, "9223372036854771712\n", 24 * (1 << 30)),  # cgroup v1's "none"
    (None, "4294967296\n", 4294967296),
])
def test_the_memory_a_process_may_use_is_its_containers_limit_else_the_machines(tmp_path, v2, v1, expected):
    from bot.judge.arithmetic import memory_limit

    root = tmp_path / "cgroup"
    (root / "memory").mkdir(parents=True)
    for path, text in ((root / "memory.max", v2), (root / "memory" / "memory.limit_in_bytes", v1)):
        if text is not None:
            path.write_text(text, encoding="ascii")
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       25165824 kB\nMemFree:        1000 kB\n", encoding="ascii")
    assert memory_limit(meminfo, tmp_path / "no-cgroups", root) == expected
    assert memory_limit(tmp_path / "missing", tmp_path / "no-cgroups", tmp_path / "none") == 0


def test_a_process_in_a_cgroup_of_its_own_takes_that_cgroups_limit(tmp_path):
    from bot.judge.arithmetic import memory_limit

    root = tmp_path / "cgroup"
    (root / "memory" / "workers" / "refbot").mkdir(parents=True)
    (root / "memory" / "workers" / "refbot" / "memory.limit_in_bytes").write_text("6442450944\n", encoding="ascii")
    (root / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n", encoding="ascii")
    v1 = tmp_path / "cgroup-v1"
    v1.write_text("12:pids:/\n4:memory:/workers/refbot\n0::/\n", encoding="ascii")
    assert memory_limit(tmp_path / "missing", v1, root) == 6442450944
    (root / "jobs" / "worker").mkdir(parents=True)
    (root / "jobs" / "worker" / "memory.max").write_text("5368709120\n", encoding="ascii")
    v2 = tmp_path / "cgroup-v2"
    v2.write_text("0::/jobs/worker\n", encoding="ascii")
    assert memory_limit(tmp_path / "missing", v2, root) == 5368709120


def test_doctor_says_a_float32_copy_would_spare_each_process_widening_the_weights(tmp_path, monkeypatch):
    monkeypatch.setattr(arithmetics, "CPUINFO", cpu(tmp_path, AVX2))
    copy = tmp_path / "models" / "qwen2.5-coder-1.5b" / "transformers-bf16"
    copy.mkdir(parents=True)
    (copy / "config.json").write_text("{}", encoding="utf-8")
    (copy / "source.sha256").write_text("ab12\n", encoding="ascii")
    options = Options.flat(model_cache=tmp_path / "models")
    said = doctor.judge_arithmetic(options)
    assert said.startswith("float32 (chosen for this CPU") and \
        "`refbot models fetch qwen2.5-coder-1.5b --float32` keeps a float32 copy" in said
    widened = copy.parent / "transformers-f32"
    widened.mkdir()
    (widened / "config.json").write_text("{}", encoding="utf-8")
    (widened / "source.sha256").write_text("ab12\n", encoding="ascii")
    assert doctor.judge_arithmetic(options) == "float32 (chosen for this CPU: avx2, no native bf16 products)"
