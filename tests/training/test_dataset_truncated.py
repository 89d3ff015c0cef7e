"""``train dataset --target-truncate T``: targets from rollouts truncated after T rolls."""

import io
import json

import numpy as np
import pytest

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import evaluate_plied
from bgtui.engine.constants import OPENING_POSITION
from bgtui.engine.evaluate import hidden_size, make_lookahead_workspace
from bgtui.training.train import DatasetSpec, build_dataset, load_dataset, rollout_targets


def _midgames():
    a = np.array(OPENING_POSITION, dtype=np.int8)
    b = a.copy()
    b[13], b[11], b[24], b[21] = 4, 1, 1, 1  # both sides split
    c = a.copy()
    c[8], c[6], c[5] = 2, 4, 2  # 8/5 6/5
    return np.stack([a, b, c])


@pytest.fixture(scope="module")
def ev():
    return with_databases(load_weights()[0], bearoff=True)


def test_two_roll_targets_of_36_quasi_random_trials_are_the_2ply_evaluation(ev):
    # Independent answer: with the first roll stratified (each of the 36 once) and the second
    # roll's luck removed exactly (variance reduction over every play), each trial is the
    # 1-ply value after its first roll, so the mean is the 2-ply evaluation by construction.
    pos = _midgames()
    got = rollout_targets(ev, pos, 36, 5, 1, truncate=2, vr_filter=0, groups=3)
    lws = make_lookahead_workspace(hidden_size(ev))
    for p, g in zip(pos, got):
        want = np.zeros(5, dtype=np.float32)
        evaluate_plied(p, 2, ev, lws, want)
        assert np.allclose(g, want, atol=2e-5), (g, want)


def test_positions_rolled_out_together_get_their_own_rollouts_bit_for_bit(ev):
    pos = _midgames()
    together = rollout_targets(ev, pos, 8, 9, 1, truncate=4, vr_filter=1, groups=3)
    alone = rollout_targets(ev, pos, 8, 9, 2, truncate=4, vr_filter=1, groups=1)
    assert np.array_equal(together, alone)
    assert not np.array_equal(together[0], together[1])  # each row its own root's


def test_a_truncated_target_dataset_records_its_settings_and_refuses_two_kinds(tmp_path):
    build_dataset(
        tmp_path / "t",
        "bgtui-0.npz",
        DatasetSpec(10, shard=10, target_truncate=3, trials=4),
        log=io.StringIO(),
    )
    pos, tg = load_dataset(tmp_path / "t")
    assert pos.shape == (10, 26) and np.all((tg >= 0) & (tg <= 1))
    with np.load(tmp_path / "t" / "shard-00000.npz") as z:
        meta = json.loads(str(z["meta"]))
    assert meta["target_truncate"] == 3 and meta["trials"] == 4 and "ply" not in meta
    with pytest.raises(ValueError, match="choose one"):
        build_dataset(
            tmp_path / "u",
            "bgtui-0.npz",
            DatasetSpec(10, shard=10, target_truncate=3, race_rollouts=4),
            log=io.StringIO(),
        )


def test_the_command_line_refuses_bad_truncated_target_options(capsys, tmp_path):
    from bgtui.cli import main

    for extra, says in (
        (["--target-truncate=-1"], "--target-truncate"),
        (["--target-truncate", "3", "--race-rollouts", "4"], "choose one"),
        (["--target-truncate", "3", "--trials", "0"], "--trials"),
    ):
        try:  # refused by the command, or by the option's own range (argparse exits)
            code = main(
                [
                    "train",
                    "dataset",
                    "--checkpoint",
                    "bgtui-0.npz",
                    "--data",
                    str(tmp_path / "x"),
                    *extra,
                ]
            )
        except SystemExit as exc:
            code = exc.code
        assert code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "x").exists()  # nothing made before the options were checked
