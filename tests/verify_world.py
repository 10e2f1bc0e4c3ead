"""What `refbot verify` finds in the demo world: two invented people whose statements already cite pages — one page
for each finding a reference can end with (bot/demo/data: world.ttl, sites/gazette, sites/journal, replies.json for
the page that moved and the paywall, the Wayback stand-in's snapshots).

    Q990401 Jana Dvořáková
      date of birth 1961-05-02     ← gazette/people/dvorakova.html           supports
      place of birth Olomouc       ← gazette/people/dvorakova-lab.html       does not support (Olomouc not written);
                                     the search stand-in finds gazette/people/dvorakova.html, which states it
      date of birth 1961-05-02     ← gazette person ID dvorakova-61 (P8901)   supports (an external identifier)
      employer Palacký University  ← gazette/people/gone.html (404), retrieved 2019-06-01: two snapshots, the one
                                     of 2019-05-20 (closest before) says it; that of 2015 does not
      educated at Charles Univ.    ← gone site (connection refused)         dead, no archive
      award: Olomouc Science Prize ← gazette/people/prize.html: "page not found" with status 200   dead, no archive
      occupation chemist           ← gazette/people/moved.html → 301 to the front page; a snapshot   dead, archived
      member of Czech Chemical Soc.← journal/members.html 403               unreadable
      field of work organic chem.  ← gazette/people/app.html (script only)  unreadable
    Q990402 Pavel Horák
      date of birth 1950-01-10     ← gazette/people/horak.html ("born on 3 March 1948")   contradicts
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.demo.world import DemoWorld

SNAPSHOT_RIGHT = "20190520101500"
SNAPSHOT_OLD = "20150101000000"
SNAPSHOT_MOVED = "20200301000000"
# What each reference should come to, by its hash.
EXPECTED = {"a1" * 20: "supports", "a2" * 20: "does-not-support", "a3" * 20: "supports",
            "a4" * 20: "dead-archived", "a5" * 20: "dead-no-archive", "a6" * 20: "dead-no-archive",
            "a7" * 20: "dead-archived", "a8" * 20: "unreadable", "a9" * 20: "unreadable", "b1" * 20: "contradicts"}
ITEMS = ("Q990401", "Q990402")


def start(directory: Path, **world: Any) -> DemoWorld:
    """The demo world, as `refbot demo --serve` serves it."""
    directory.mkdir(parents=True, exist_ok=True)
    return DemoWorld(workdir=directory, **world).start()
