"""The thread count every CPU backend takes by default: the cores no other process keeps busy (issue 32: OpenMP
threads spinning on a core another job holds ran an eval 6-10 times slower than one thread)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.judge.threads import _cgroup_quota, busy_elsewhere, free_cores, threads_for, usable_cpus


@pytest.mark.parametrize(("cpus", "busy", "expected"), [
    (2, 0.0, 2),  # idle: every core
    (2, 0.2, 2),  # a neighbour waking now and then leaves the core
    (2, 0.7, 1),  # one busy most of the time takes it
    (2, 1.0, 1),
    (2, 2.5, 1),  # never fewer than one
    (16, 3.4, 13),
    (4, -1.0, 4),  # a measurement below zero counts as none
    (0, 0.0, 1),
])
def test_free_cores_are_the_cores_less_the_others_load_at_least_one(cpus, busy, expected):
    assert free_cores(cpus, busy) == expected


def test_an_explicit_thread_count_wins_over_the_free_cores():
    assert threads_for(6, cpus=2, busy=1.9) == 6
    assert threads_for(0, cpus=2, busy=1.0) == 1
    assert threads_for(0, cpus=8, busy=0.0) == 8


def test_the_machine_is_measured_when_nothing_is_given():
    assert 1 <= usable_cpus()
    assert busy_elsewhere(0.05) >= 0.0
    assert 1 <= threads_for(0) <= usable_cpus()


def test_a_cgroup_quota_caps_the_cores(tmp_path: Path):
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert _cgroup_quota(tmp_path / "cpu.max") == 1.5
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert _cgroup_quota(tmp_path / "cpu.max") is None
    assert _cgroup_quota(tmp_path / "missing") is None
