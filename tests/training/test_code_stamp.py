"""A dataset build stops, without writing the shard, when bgtui's kernel code changes on disk
under it (numba could mix kernels of the old and the new code), and resumes to the shards an
uninterrupted build makes."""

import io
import os

import numpy as np
import pytest

from bgtui.analysis.weights import save_weights, with_databases
from bgtui.engine.nn import init_net
from bgtui.training import train
from bgtui.training.train import CodeChangedError, DatasetSpec, build_dataset, code_stamp


def test_the_stamp_moves_with_a_source_files_size_or_time_and_nothing_else(tmp_path):
    for pkg in ("engine", "training"):
        (tmp_path / pkg).mkdir()
        (tmp_path / pkg / "a.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("not code")
    first = code_stamp(tmp_path)
    assert code_stamp(tmp_path) == first
    (tmp_path / "notes.txt").write_text("other words")  # outside the kernel packages
    (tmp_path / "engine" / "b.txt").write_text("not a source file")
    assert code_stamp(tmp_path) == first
    (tmp_path / "training" / "a.py").write_text("x = 22\n")  # another size
    second = code_stamp(tmp_path)
    assert second != first
    st = os.stat(tmp_path / "engine" / "a.py")
    os.utime(tmp_path / "engine" / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert code_stamp(tmp_path) != second  # the same size, a new time
    assert code_stamp() == code_stamp()  # this bgtui's, unchanged while the test runs


def _small(tmp_path):
    ck = tmp_path / "small.npz"
    save_weights(ck, with_databases((init_net(8, 3), init_net(4, 4))), {"games_trained": 0})
    return ck


def test_a_build_stops_before_a_shard_made_across_a_change_and_resumes(tmp_path, monkeypatch):
    ck = _small(tmp_path)
    spec = DatasetSpec(300, shard=100, seed=4)
    build_dataset(tmp_path / "whole", ck, spec, log=io.StringIO())
    stamps = iter(["old", "old", "old", "new"])  # the start, shards 0 and 1, then shard 2
    monkeypatch.setattr(train, "code_stamp", lambda root=None: next(stamps))
    with pytest.raises(CodeChangedError, match="shard 2 was not written"):
        build_dataset(tmp_path / "cut", ck, spec, log=io.StringIO())
    assert sorted(p.name for p in (tmp_path / "cut").iterdir()) == [
        "shard-00000.npz",
        "shard-00001.npz",
    ]
    monkeypatch.undo()
    build_dataset(tmp_path / "cut", ck, spec, log=io.StringIO())  # the same command resumes
    for k in range(3):
        with np.load(tmp_path / "whole" / f"shard-{k:05d}.npz") as a:
            with np.load(tmp_path / "cut" / f"shard-{k:05d}.npz") as b:
                assert np.array_equal(a["positions"], b["positions"])
                assert np.array_equal(a["targets"], b["targets"])


def test_the_command_line_says_what_changed_and_how_to_resume(capsys, tmp_path, monkeypatch):
    from bgtui.cli import main

    ck = _small(tmp_path)
    stamps = iter(["old", "new"])
    monkeypatch.setattr(train, "code_stamp", lambda root=None: next(stamps))
    args = ["train", "dataset", "--checkpoint", str(ck), "--data", str(tmp_path / "d")]
    code = main([*args, "--positions", "100", "--shard", "100", "--target-ply", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "changed on disk while this job ran" in err and "shard 0 was not written" in err
    assert "Traceback" not in err
    assert not list((tmp_path / "d").glob("shard-*.npz"))
