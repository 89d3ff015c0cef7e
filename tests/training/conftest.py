"""Fixtures of the training tests."""

import io
import json

import pytest


@pytest.fixture
def small_dataset(tmp_path):
    """Build a training set of ``spec`` (a ``DatasetSpec``) with small random nets into a
    fresh directory; returns its positions, targets, groups (or None) and the last shard's
    metadata."""
    from bgtui.analysis.weights import save_weights, with_databases
    from bgtui.engine.nn import init_net
    from bgtui.training.train import build_dataset, load_dataset

    ck = tmp_path / "small.npz"
    save_weights(ck, with_databases((init_net(8, 3), init_net(4, 4))), {"games_trained": 0})

    def build(spec, name="set"):
        import numpy as np

        build_dataset(tmp_path / name, ck, spec, log=io.StringIO())
        grouped = bool(spec.children_best)
        pos, tg, *grp = load_dataset(tmp_path / name, with_groups=grouped)
        last = sorted((tmp_path / name).glob("shard-*.npz"))[-1]
        with np.load(last) as z:
            meta = json.loads(str(z["meta"]))
        return pos, tg, grp[0] if grouped else None, meta

    return build
