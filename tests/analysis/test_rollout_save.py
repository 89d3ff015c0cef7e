"""Saved rollouts: what a file must be to be resumed, and saving that leaves nothing behind.
(Kill-and-resume through the command line: tests/test_cli_reliability.py.)"""

import json
import os
import subprocess
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgtui.analysis.formats import parse_position
from bgtui.analysis.models import RolloutSettings
from bgtui.analysis.rollout import RolloutJob, check_writable
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.movegen import generate_plays
from bgtui.engine.position import swap_sides

OPENING = "4HPwATDgc/ABMA"


def _job():
    """A job with made-up but consistent sums (saving and loading never runs the engine)."""
    s = RolloutSettings(trials=100, seed=5, truncate=5)
    job = RolloutJob(np.array(OPENING_POSITION)[None], [""], [OPENING], s, False)
    rng = np.random.default_rng(1)
    job.n[:] = 40
    job.sums[:] = rng.normal(size=job.sums.shape)
    job.sumsq[:] = job.sums**2 + 1.0
    job.cross[:] = 1.5
    job.state_cross[:] = 0.25
    job.joint[:] = 40
    job.elapsed = 1.25
    return job


def _same(a, b):
    for k in ("roots", "n", "sums", "sumsq", "cross", "state_cross", "joint", "pruned", "cubes"):
        assert np.array_equal(getattr(a, k), getattr(b, k)), k
    assert a.settings == b.settings and a.labels == b.labels and a.elapsed == b.elapsed


def test_save_and_load_give_back_the_same_job_and_leave_no_temporary_file(tmp_path):
    job = _job()
    job.save(tmp_path / "r.json")
    _same(RolloutJob.load(tmp_path / "r.json"), job)
    assert sorted(os.listdir(tmp_path)) == ["r.json"]


def test_a_save_removes_temporaries_of_killed_saves_to_the_same_file(tmp_path):
    dead = subprocess.Popen(["true"])
    dead.wait()
    for name in (
        f".r.json.{dead.pid}.tmp",
        f".r.json.{dead.pid}.k3x_9q.tmp",  # atomic_write's names carry a random part
        f".other.json.{dead.pid}.tmp",
        f".r.json.{os.getppid()}.tmp",
        f".r.json.{os.getppid()}.k3x_9q.tmp",
    ):
        (tmp_path / name).write_text("{half a sa")
    _job().save(tmp_path / "r.json")
    # the dead process's leftovers of r.json are gone; another file's and a live process's stay
    assert sorted(os.listdir(tmp_path)) == sorted(
        [
            f".other.json.{dead.pid}.tmp",
            f".r.json.{os.getppid()}.tmp",
            f".r.json.{os.getppid()}.k3x_9q.tmp",
            "r.json",
        ]
    )


def test_a_save_is_synced_to_disk_before_it_replaces_the_file(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    _job().save(tmp_path / "r.json")
    assert len(synced) == 1
    assert (tmp_path / "r.json").stat().st_mode & 0o777 == 0o644


def _state():
    return json.loads(json.dumps(_job().to_state()))


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d.update(version=99), "version 99"),
        (lambda d: d.pop("sums"), "lacks sums"),
        (lambda d: d["sums"][0].__setitem__(0, float("nan")), "holds NaN"),
        (lambda d: d["sums"][0].__setitem__(0, float("inf")), "holds Infinity"),
        (lambda d: d["n"].__setitem__(0, -3), "negative"),
        (lambda d: d["n"].__setitem__(0, 2.5), "not a count"),
        (lambda d: d["sumsq"][0].__setitem__(1, -1.0), "negative"),
        (lambda d: d["joint"][0].__setitem__(0, 41), "more joint trials"),
        (lambda d: d["roots"][0].__setitem__(6, 9), "not a position"),
        (lambda d: d.update(roots=[[0] * 25]), "shape"),
        (lambda d: d["settings"].update(truncate=-1), "truncate"),
        (lambda d: d["settings"].update(seed=2**70), "seed"),
        (lambda d: d["settings"].update(gammon_play_on=7.5), "play-on"),
        (lambda d: d["settings"].update(colour="red"), "settings"),
        (lambda d: d.update(labels="x"), "labels"),
        (lambda d: d.update(pruned=[1]), "pruned"),
        (lambda d: d.update(elapsed=-1), "elapsed"),
    ],
)
def test_a_bad_save_is_refused_with_one_line(tmp_path, change, words):
    d = _state()
    change(d)
    f = tmp_path / "r.json"
    f.write_text(json.dumps(d))  # json writes NaN and Infinity; the reader refuses them
    with pytest.raises(ValueError) as e:
        RolloutJob.load(f)
    msg = str(e.value)
    assert words in msg and "\n" not in msg and len(msg) < 300, msg


def test_missing_truncated_and_foreign_files_are_refused_with_one_line(tmp_path):
    good = json.dumps(_state())
    for name, content in (
        ("cut.json", good[: len(good) // 2]),
        ("bin.json", b"\xff\x00\x01"),
        ("list.json", "[1, 2]"),
        ("empty.json", ""),
    ):
        f = tmp_path / name
        f.write_bytes(content if isinstance(content, bytes) else content.encode())
        with pytest.raises(ValueError, match="saved rollout") as e:
            RolloutJob.load(f)
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="cannot read"):
        RolloutJob.load(tmp_path / "missing.json")


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_save_cut_anywhere_is_refused_or_whole(tmp_path_factory, data):
    good = json.dumps(_state())
    cut = data.draw(st.integers(0, len(good)))
    f = tmp_path_factory.mktemp("cut") / "r.json"
    f.write_text(good[:cut])
    try:
        job = RolloutJob.load(f)
    except ValueError:
        return
    _same(job, _job())


def test_a_job_knows_whether_it_rolls_out_a_given_position_and_settings():
    job = _job()
    opening = parse_position(OPENING)
    assert job.mismatch(opening, job.settings) is None
    assert job.mismatch(opening, replace(job.settings, trials=999, workers=1)) is None
    assert "truncate 5" in job.mismatch(opening, replace(job.settings, truncate=7))
    other = parse_position("XGID=-CCCBBB------------cccbbb-:1:1:-1:63:2:4:0:7:10")
    assert "another position" in job.mismatch(other)


def test_a_candidate_job_matches_its_position_with_or_without_the_dice():
    children, _ = generate_plays(np.asarray(OPENING_POSITION, dtype=np.int8), 3, 1)
    roots = np.array([swap_sides(np.asarray(c, dtype=np.int8)) for c in children[:2]])
    job = RolloutJob(roots, ["a", "b"], ["x", "y"], RolloutSettings(trials=10), True)
    opening = parse_position(OPENING)
    assert job.mismatch(replace(opening, dice=(3, 1))) is None
    assert job.mismatch(opening) is None  # of some roll
    assert "other dice" in job.mismatch(replace(opening, dice=(6, 5)))


def test_the_save_path_is_checked_before_anything_runs(tmp_path):
    check_writable(tmp_path / "r.json")
    assert os.listdir(tmp_path) == []  # the probe leaves nothing
    with pytest.raises(ValueError, match="no directory"):
        check_writable(tmp_path / "missing" / "r.json")
    with pytest.raises(ValueError, match="is a directory"):
        check_writable(tmp_path)


def test_a_state_given_directly_with_non_finite_sums_is_refused():
    d = _state()
    d["cross"][0][0][0] = float("nan")
    with pytest.raises(ValueError, match="cross holds a value that is not finite"):
        RolloutJob.from_state(d)
