"""The refit of the gammon and backgammon outputs (``bgtui.training.head_refit``): the
regression recovers known weights, only the rows asked for change, resumable chunk data."""

import subprocess
import sys

import numpy as np
import pytest

from bgtui.analysis.weights import as_nets, load_weights, save_weights
from bgtui.engine.evaluate import hidden_size, make_play_workspace
from bgtui.engine.nn import (
    ANCHOR,
    ANCHOR_BAR,
    CONTACT,
    CONTACT_BAR,
    EARLY,
    EARLY_BAR,
    EARLY_TRAILING,
    EARLY_TRAILING_BAR,
    MUTUAL,
    MUTUAL_ANCHOR,
    MUTUAL_ANCHOR_BAR,
    MUTUAL_BAR,
    MUTUAL_TRAILING,
    MUTUAL_TRAILING_ANCHOR,
    MUTUAL_TRAILING_ANCHOR_BAR,
    MUTUAL_TRAILING_BAR,
    TRAILING,
    TRAILING_ANCHOR,
    TRAILING_ANCHOR_BAR,
    TRAILING_BAR,
    net_class,
)
from bgtui.engine.rng import make_rng
from bgtui.engine.selfplay import contact_positions as engine_contact_positions
from bgtui.training.adam import dense_inputs, forward
from bgtui.training.head_refit import fit_head, refit_heads


def test_fit_head_recovers_the_weights_of_a_known_logistic_model():
    rng = np.random.default_rng(3)
    n, k = 40_000, 6
    H = np.hstack([rng.uniform(0, 1, (n, k)), np.ones((n, 1))])
    w_true = np.array([2.0, -1.0, 0.5, 3.0, -2.5, 1.0, -1.5])
    p = 1 / (1 + np.exp(-(H @ w_true)))
    t = (rng.uniform(size=n) < p).astype(float)  # outcomes drawn from the model
    w = fit_head(H, t, np.zeros(k + 1), ridge=0.0)
    np.testing.assert_allclose(w, w_true, atol=0.12)


def test_ridge_keeps_the_weights_near_the_start():
    rng = np.random.default_rng(4)
    H = np.hstack([rng.uniform(0, 1, (200, 3)), np.ones((200, 1))])
    t = rng.uniform(size=200)
    w0 = np.array([0.3, -0.2, 0.1, -1.0])
    assert np.abs(fit_head(H, t, w0, ridge=1e9) - w0).max() < 1e-5
    assert np.abs(fit_head(H, t, w0, ridge=0.0) - w0).max() > 0.05


@pytest.fixture(scope="module")
def contact_positions():
    ev = load_weights("bgtui-0.npz")[0]
    return engine_contact_positions(ev, 40, make_rng(8), make_play_workspace(hidden_size(ev)), 4000)


def test_refit_changes_only_the_rows_asked_for_and_moves_them_to_the_targets(
    tmp_path, contact_positions
):
    """Targets whose backgammon rates are 20%: the refitted rows 2 and 4 of the contact and
    crashed nets predict about that on the positions (the contact net's: those of the classes
    it values); every other weight is untouched."""
    pos = contact_positions
    ro = np.zeros((len(pos), 5), dtype=np.float32)
    ro[:, 0] = 0.5
    ro[:, 1] = 0.3
    ro[:, 2] = 0.2
    ro[:, 3] = 0.3
    ro[:, 4] = 0.2
    half = len(pos) // 2
    data = tmp_path / "data"
    data.mkdir()
    np.savez(data / "chunk-0000.npz", pos=pos[:half], ro=ro[:half])
    np.savez(data / "chunk-0001.npz", pos=pos[half:], ro=ro[half:])
    out = tmp_path / "w.npz"
    info = refit_heads(
        out, "bgtui-0.npz", data, ridge=1.0, heads=(2, 4), holdout=0, log=lambda s: None
    )
    assert info["positions"] == len(pos)
    old = as_nets(load_weights("bgtui-0.npz")[0])
    ev, meta = load_weights(str(out))
    new = as_nets(ev)
    assert meta["output_refit"]["heads"] == [2, 4]
    for c in range(3):
        for part in (0, 1):  # the hidden layer
            np.testing.assert_array_equal(new[c][part], old[c][part])
        for j in (0, 1, 3):  # rows not asked for
            np.testing.assert_array_equal(new[c][2][j], old[c][2][j])
            assert new[c][3][j] == old[c][3][j]
    np.testing.assert_array_equal(new[1][2], old[1][2])  # the race net
    cls = np.array([net_class(p) for p in pos])
    valued = [j for j, net in enumerate(new) if net is new[CONTACT]]  # by the contact net
    k = np.flatnonzero(np.isin(cls, valued))
    _, y_old = forward(old[0], dense_inputs(pos, k))
    _, y_new = forward(new[0], dense_inputs(pos, k))
    assert abs(y_new[:, 2].mean() - 0.2) < 0.02 and abs(y_new[:, 4].mean() - 0.2) < 0.02
    assert abs(y_old[:, 2].mean() - 0.2) > 0.1


def test_a_chain_of_tied_nets_is_refitted_as_the_net_it_ends_at(tmp_path, contact_positions):
    """Weights whose trailing net is their contact net, and so their mutual trailing net
    (tied to the trailing net), their mutual net and their anchor nets (tied to those), and
    whose early trailing and early bar nets are their early net (the early trailing bar net
    by the early trailing net: a chain), and whose bar nets below ``EARLY_PIPS`` are the
    nets of the classes they split (so the contact net, by chains through the anchor,
    mutual and trailing nets): the positions of the sixteen classes below ``EARLY_PIPS``
    refit the contact net's rows, those of the four early classes the early net's, and the
    weights written keep the ties."""
    init = tmp_path / "tied.npz"
    save_weights(init, as_nets(load_weights("bgtui-0.npz")[0])[:5], {})
    pos = contact_positions
    ro = np.full((len(pos), 5), 0.2, dtype=np.float32)
    data = tmp_path / "data"
    data.mkdir()
    np.savez(data / "chunk-0000.npz", pos=pos, ro=ro)
    out = tmp_path / "w.npz"
    info = refit_heads(out, init, data, heads=(2,), holdout=0, log=lambda s: None)
    cls = np.array([net_class(p) for p in pos])
    assert np.isin(cls, (TRAILING, TRAILING_BAR)).sum() > 20
    mutual_trailing = (MUTUAL_TRAILING, MUTUAL_TRAILING_ANCHOR)
    mutual_trailing += (MUTUAL_TRAILING_BAR, MUTUAL_TRAILING_ANCHOR_BAR)
    assert np.isin(cls, mutual_trailing).sum() > 20
    below = (CONTACT, TRAILING, MUTUAL, MUTUAL_TRAILING)
    below += (ANCHOR, MUTUAL_ANCHOR, TRAILING_ANCHOR, MUTUAL_TRAILING_ANCHOR)
    bars = (CONTACT_BAR, TRAILING_BAR, MUTUAL_BAR, MUTUAL_TRAILING_BAR)
    bars += (ANCHOR_BAR, MUTUAL_ANCHOR_BAR, TRAILING_ANCHOR_BAR, MUTUAL_TRAILING_ANCHOR_BAR)
    assert min((cls == k).sum() for k in bars) > 2, np.bincount(cls)
    assert info["report"]["contact_2"]["train"] == np.isin(cls, below + bars).sum()
    early = (EARLY, EARLY_TRAILING, EARLY_BAR, EARLY_TRAILING_BAR)
    assert min((cls == k).sum() for k in early) > 5, np.bincount(cls)
    assert info["report"]["early_2"]["train"] == np.isin(cls, early).sum()
    tied = ("trailing", "mutual", "anchor", "early_trailing", "early_bar", "contact_bar")
    assert not any(key.startswith(tied) for key in info["report"])
    ev = load_weights(str(out))[0]
    assert ev.mutual_trailing is ev.trailing and ev.trailing is ev.contact
    assert ev.mutual is ev.contact
    assert ev.anchor is ev.mutual_anchor is ev.trailing_anchor is ev.contact
    assert ev.mutual_trailing_anchor is ev.contact
    assert ev.early_trailing is ev.early and ev.early is not ev.contact
    assert ev.early_bar is ev.early_trailing_bar is ev.early
    assert ev.contact_bar is ev.trailing_bar is ev.mutual_bar is ev.mutual_trailing_bar
    assert ev.anchor_bar is ev.mutual_anchor_bar is ev.trailing_anchor_bar is ev.contact
    assert ev.mutual_trailing_anchor_bar is ev.contact_bar is ev.contact


#: (anchor class, the class it splits)
_ANCHOR_TIES = (
    (ANCHOR, CONTACT),
    (MUTUAL_ANCHOR, MUTUAL),
    (TRAILING_ANCHOR, TRAILING),
    (MUTUAL_TRAILING_ANCHOR, MUTUAL_TRAILING),
)


def test_the_anchor_nets_are_refitted_with_the_nets_of_the_classes_they_split(
    tmp_path, contact_positions
):
    """The shipped weights with their anchor nets tied to the nets of the classes they split
    (the contact, mutual, trailing and mutual trailing nets, each a net of its own) and the
    bar nets of both classes tied to those four too: each of those nets' rows is refitted on
    its class's positions, its anchor class's and those two classes' bar classes', and the
    weights written keep the ties."""
    from bgtui.engine.nn import NET_NAMES

    pos = contact_positions
    ro = np.full((len(pos), 5), 0.2, dtype=np.float32)
    data = tmp_path / "data"
    data.mkdir()
    np.savez(data / "chunk-0000.npz", pos=pos, ro=ro)
    shipped, meta = load_weights("bgtui-0.npz")
    nets = list(as_nets(shipped))
    for anchor, k in _ANCHOR_TIES:
        nets[anchor] = nets[k]
        for j in (k, anchor):  # the bar nets of both classes tied to it in turn
            nets[NET_NAMES.index(f"{NET_NAMES[j]}_bar")] = nets[k]
    tied = tmp_path / "tied.npz"
    save_weights(tied, tuple(nets), meta, side=shipped.side)
    out = tmp_path / "w.npz"
    info = refit_heads(out, str(tied), data, heads=(2,), holdout=0, log=lambda s: None)
    cls = np.array([net_class(p) for p in pos])
    for anchor, k in _ANCHOR_TIES:
        bars = tuple(NET_NAMES.index(f"{NET_NAMES[j]}_bar") for j in (k, anchor))
        assert np.isin(cls, (anchor, bars[1])).sum() > 5 and np.isin(cls, (k, bars[0])).sum() > 5
        got = info["report"][f"{NET_NAMES[k]}_2"]["train"]
        assert got == np.isin(cls, (k, anchor, *bars)).sum()
    assert not any("anchor" in key for key in info["report"])
    ev = load_weights(str(out))[0]
    assert ev.anchor is ev.contact and ev.mutual_anchor is ev.mutual
    assert ev.trailing_anchor is ev.trailing
    assert ev.mutual_trailing_anchor is ev.mutual_trailing
    assert len({id(x) for x in (ev.contact, ev.mutual, ev.trailing, ev.mutual_trailing)}) == 4
    assert ev.anchor_bar is ev.contact_bar is ev.contact
    assert ev.mutual_trailing_anchor_bar is ev.mutual_trailing


def _train_heads(checkpoint, data, *extra):
    """``bgtui train heads`` in a process of its own, on ``checkpoint`` and ``data``."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "bgtui.cli",
            "train",
            "heads",
            "--checkpoint",
            str(checkpoint),
            "--data",
            str(data),
            *extra,
        ],
        capture_output=True,
        text=True,
    )


def test_cli_says_what_is_missing(tmp_path):
    r = _train_heads(tmp_path / "w.npz", tmp_path / "none")
    assert r.returncode == 2
    assert "no rollout chunks" in r.stderr and "Traceback" not in r.stderr
    r = _train_heads(tmp_path / "w.npz", tmp_path, "--heads", "2,x")
    assert r.returncode == 2 and "--heads" in r.stderr
