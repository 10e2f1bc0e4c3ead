"""Which arithmetic a model is computed in on this CPU: bfloat16 where the CPU multiplies it natively, else float32.

Without AVX512-BF16 or AMX, torch emulates bf16 matrix products — six times slower than float32 on an AVX2 core (9
against 58 GFLOPS, benchmarks/README.md) —, so the embedded judge (``[judge] dtype = auto``) and ``refbot
serve-judge --dtype auto`` both choose here, once, at start. Pure but for reading ``/proc/cpuinfo``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
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

    @property
    def native_bf16(self) -> bool:
        """Whether this CPU multiplies bf16 in hardware."""
        return any(flag in NATIVE_BF16 for flag in self.flags)

    def describe(self) -> str:
        """'float32 (chosen for this CPU: avx512f avx2, no native bf16 products)' and the like."""
        has = " ".join(self.flags) or "no vector flags read"
        products = "native bf16 products" if self.native_bf16 else "no native bf16 products"
        how = "chosen for this CPU" if self.chosen else "as configured"
        return f"{self.dtype} ({how}: {has}, {products})"


def arithmetic(dtype: str = "auto", cpuinfo: Path | None = None) -> Arithmetic:
    """``dtype`` resolved on this CPU: "auto" is bfloat16 where it multiplies bf16 natively, else float32."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown arithmetic {dtype!r}: choose one of {', '.join(DTYPES)}")
    flags = cpu_flags(cpuinfo)
    shown = tuple(flag for flag in SHOWN if flag in flags)
    if dtype != "auto":
        return Arithmetic(dtype, shown, chosen=False)
    return Arithmetic("bfloat16" if flags & set(NATIVE_BF16) else "float32", shown, chosen=True)


def cpu_dtype(cpuinfo: Path | None = None) -> str:
    """bfloat16 where the CPU multiplies it natively (AVX512-BF16 or AMX), else float32."""
    return arithmetic("auto", cpuinfo).dtype
