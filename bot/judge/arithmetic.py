"""Which arithmetic a model is computed in on this CPU: bfloat16 where the CPU multiplies it natively, else float32.

Without AVX512-BF16 or AMX, torch emulates bf16 matrix products — six times slower than float32 on an AVX2 core (9
against 58 GFLOPS, benchmarks/README.md) —, so the embedded judge (``[judge] dtype = auto``) and ``refbot
serve-judge --dtype auto`` both choose here, once, at start. float32 weights take twice bf16's memory: where the
memory this process may use (its container's limit, else the machine's) cannot hold them, ``auto`` keeps bf16 —
slower, but a worker that fits (a Toolforge job may have 6 GiB). Pure but for reading ``/proc`` and the cgroup.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
MEMINFO = Path("/proc/meminfo")
CGROUPS = Path("/proc/self/cgroup")
CGROUP_ROOT = Path("/sys/fs/cgroup")
# What a process of refbot takes beside the judge's weights: Python and torch, the embedding model, the tokenizers,
# pages and their units, a prompt's key-value cache (a worker with the judge on a server peaked at 1.3 GB).
BESIDE_WEIGHTS = 1_500_000_000
GIB = 1 << 30
DTYPES = ("auto", "bfloat16", "float32")
# The flags that mean bf16 products in hardware (x86): AVX-512's dot products, AMX's tiles.
NATIVE_BF16 = ("avx512_bf16", "amx_bf16")
# The flags named when saying what a CPU has (the widest vector instructions first).
SHOWN = ("amx_bf16", "avx512_bf16", "avx512f", "avx2")


def cpu_flags(cpuinfo: Path | None = None) -> frozenset[str]:
    """The first processor's flags in ``/proc/cpuinfo`` (x86's ``flags``, ARM's ``Features``); empty if unread."""
    try:
        text = (cpuinfo or CPUINFO).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


@dataclass(frozen=True)
class Arithmetic:
    """The type a model is computed in and why: what ``refbot doctor`` prints and the trace keeps."""

    dtype: str
    flags: tuple[str, ...]  # the CPU's flags that decided it (SHOWN), widest first
    chosen: bool  # True: "auto" chose it from the CPU; False: the options named it
    # Why "auto" kept bf16 on a CPU without native bf16 products: float32's weights would not fit ("" otherwise).
    memory: str = ""

    @property
    def native_bf16(self) -> bool:
        """Whether this CPU multiplies bf16 in hardware."""
        return any(flag in NATIVE_BF16 for flag in self.flags)

    def describe(self) -> str:
        """'float32 (chosen for this CPU: avx512f avx2, no native bf16 products)' and the like."""
        has = " ".join(self.flags) or "no vector flags read"
        products = "native bf16 products" if self.native_bf16 else "no native bf16 products"
        how = "chosen for this CPU" if self.chosen else "as configured"
        return f"{self.dtype} ({how}: {has}, {products}{'; ' + self.memory if self.memory else ''})"


def arithmetic(dtype: str = "auto", cpuinfo: Path | None = None, *, weights: int = 0,
               memory: int | None = None) -> Arithmetic:
    """``dtype`` resolved on this CPU: "auto" is bfloat16 where it multiplies bf16 natively, else float32 — unless
    float32 copies of ``weights`` (the model's bytes in bf16; 0: not known) would not fit in ``memory`` (the bytes
    this process may use; None: read from the cgroup or the machine), when it stays bfloat16."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown arithmetic {dtype!r}: choose one of {', '.join(DTYPES)}")
    flags = cpu_flags(cpuinfo)
    shown = tuple(flag for flag in SHOWN if flag in flags)
    if dtype != "auto":
        return Arithmetic(dtype, shown, chosen=False)
    if flags & set(NATIVE_BF16):
        return Arithmetic("bfloat16", shown, chosen=True)
    room = memory_limit() if memory is None else memory
    needed = 2 * weights + BESIDE_WEIGHTS
    if weights and room and needed > room:
        return Arithmetic("bfloat16", shown, chosen=True,
                          memory=f"float32 would need about {needed / GIB:.1f} GiB, this process may use "
                                 f"{room / GIB:.1f} GiB")
    return Arithmetic("float32", shown, chosen=True)


def memory_limit(meminfo: Path | None = None, cgroups: Path | None = None, root: Path | None = None) -> int:
    """The bytes this process may use: the lowest memory limit of its own cgroup (v2 or v1, as ``/proc/self/cgroup``
    names it) and of the cgroup root it sees (a container's), else the machine's memory; 0 if none can be read."""
    root = root or CGROUP_ROOT
    # its own cgroup's, then the root's: v2's memory.max, v1's memory.limit_in_bytes ("max" or ~2**63: none)
    limits = (*_own_cgroup_limits(cgroups or CGROUPS, root), root / "memory.max",
              root / "memory" / "memory.limit_in_bytes")
    found = []
    for path in limits:
        try:
            text = path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if text.isdigit() and int(text) < 1 << 60:  # "max", or v1's page-rounded 2**63: no limit
            found.append(int(text))
    if found:
        return min(found)
    try:
        for line in (meminfo or MEMINFO).read_text(encoding="ascii").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, UnicodeDecodeError, ValueError, IndexError):
        pass
    return 0


def _own_cgroup_limits(cgroups: Path, root: Path) -> list[Path]:
    """The memory limit files of this process's own cgroup: "0::/path" (v2), "N:memory:/path" (v1)."""
    try:
        lines = cgroups.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    paths = []
    for line in lines:
        _, controllers, where = (line.split(":", 2) + ["", ""])[:3]
        where = where.strip().lstrip("/")
        if controllers == "" and where:
            paths.append(root / where / "memory.max")
        elif "memory" in controllers.split(",") and where:
            paths.append(root / "memory" / where / "memory.limit_in_bytes")
    return paths


def weights_bytes(model: Path) -> int:
    """A model directory's weights in bytes (its safetensors files); 0 for a file or what cannot be read."""
    try:
        return sum(path.stat().st_size for path in model.glob("*.safetensors")) if model.is_dir() else 0
    except OSError:
        return 0


def cpu_dtype(cpuinfo: Path | None = None) -> str:
    """bfloat16 where the CPU multiplies it natively (AVX512-BF16 or AMX), else float32."""
    return arithmetic("auto", cpuinfo).dtype
