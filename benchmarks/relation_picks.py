#!/usr/bin/env python3
"""The model's relation picks measured (FactGenius's step in bot.corroboration): 20 probes written for refbot, each
a Wikidata property and the relations an authority record states the statement's value under, with the relations
that do mean the property.

    benchmarks/relation_picks.py [--judge transformers|openai] [--judge-url URL] [--model NAME]

Each probe is asked as `refbot check` asks it (the ``kg-relations`` prompt, the answer validated against the
record's relations with RapidFuzz > 90, a pick named like one of the property's contrasts refused, and one whose
label's MiniLM embedding is further than ``PICK_COSINE`` from the property's). It prints each
probe's answer and what was kept, then: right picks, wrong picks (a relation kept that does not mean the property:
a wrong "stated in" reference if the value matched), missed relations, answers refused, tokens and seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from bot.corroboration.picking import pick_relations  # noqa: E402
from bot.corroboration.stage import _close_to, _contrasts, _without_contrasts  # noqa: E402
from bot.options import load_options  # noqa: E402
from bot.wiring import Wiring  # noqa: E402

# (property, relations in the record with the statement's value, the relations among them that mean the property)
PROBES = [
    ("P569", [("born", "1981-09-21")], {"born"}),
    ("P569", [("active from", "1968-02-11"), ("born", "1968-02-11")], {"born"}),
    ("P569", [("active from", "1968-02-11")], set()),
    ("P569", [("year of baptism", "1712")], set()),
    ("P570", [("died", "1999-04-05")], {"died"}),
    ("P570", [("date of birth", "1968-02-11")], set()),
    ("P570", [("end of activity", "1999")], set()),
    ("P19", [("birth town", "Prague")], {"birth town"}),
    ("P19", [("place of activity", "Prague")], set()),
    ("P19", [("native city", "Brno"), ("residence", "Brno")], {"native city"}),
    ("P20", [("place of death", "Vienna")], {"place of death"}),
    ("P20", [("place of birth", "Vienna")], set()),
    ("P69", [("affiliation", "Charles University")], set()),
    ("P69", [("alma mater", "Charles University")], {"alma mater"}),
    ("P108", [("alma mater", "Charles University")], set()),
    ("P108", [("employed by", "Charles University"), ("member of", "Charles University")], {"employed by"}),
    ("P166", [("honours", "Purkyně Prize")], {"honours"}),
    ("P166", [("nominated for", "Purkyně Prize")], set()),
    ("P106", [("job title", "violinist")], {"job title"}),
    ("P106", [("field of study", "chemistry")], set()),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judge", choices=("transformers", "openai"))
    parser.add_argument("--judge-url")
    parser.add_argument("--model")
    args = parser.parse_args()
    options = load_options()
    given = (("judge_backend", args.judge), ("judge_url", args.judge_url), ("judge_model", args.model))
    overrides = {key: value for key, value in given if value}
    options = options.replaced(**overrides)
    parts = Wiring(options, endpoint=None)  # the catalogue's contrasts, offline
    backend, embed, profiles = parts.generator, parts.embedder, parts.profiles
    right = wrong = missed = refused = tokens = 0
    started = time.monotonic()
    for property_id, relations, meant in PROBES:
        profile = profiles.profile(property_id)
        picks = pick_relations(backend, profile.label, profile.description, relations)
        picks = _close_to(_without_contrasts(picks, _contrasts(profile)), profile.label, embed)
        kept = set(picks.accepted)
        right += len(kept & meant)
        wrong += len(kept - meant)
        missed += len(meant - kept)
        refused += len(picks.refused)
        tokens += picks.prompt_tokens
        mark = "ok" if kept == meant else "WRONG" if kept - meant else "missed"
        print(f"{mark:<6} {profile.label} ← {', '.join(name for name, _ in relations)}: answered "
              f"{picks.answer!r}; kept {sorted(kept) or 'nothing'}"
              + (f"; refused {list(picks.refused)}" if picks.refused else ""))
    seconds = time.monotonic() - started
    meant_total = sum(len(meant) for _, _, meant in PROBES)
    print(f"\n{len(PROBES)} probes, model {backend.model_id}: right picks {right}/{meant_total}, wrong picks {wrong}, "
          f"missed {missed}, answers refused {refused}; {tokens / len(PROBES):.0f} prompt tokens and "
          f"{seconds / len(PROBES):.1f} s a probe")
    return 0


if __name__ == "__main__":
    sys.exit(main())
