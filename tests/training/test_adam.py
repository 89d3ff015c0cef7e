"""Minibatch Adam for the nets: its arithmetic against the engine and finite differences, and
a fit with it resumes exactly."""

import io
import json

import numpy as np
import pytest

from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import evaluate0, forward
from bgtui.engine.evaluate import make_eval_workspace
from bgtui.engine.nn import init_net
from bgtui.training import adam
from bgtui.training.train import DatasetSpec, FitSettings, build_dataset, fit, load_dataset
from tests.reference.games import game_positions
from tests.training.test_training import _KilledAfter, _small_weights


def test_the_numpy_forward_pass_is_the_engines():
    net = init_net(16, 3, scale=0.3)
    positions = np.array(game_positions(2, 2)[:300], dtype=np.int8)
    x = adam.dense_inputs(positions, np.arange(len(positions)))
    _, y = adam.forward(net, x)
    ews = make_eval_workspace(16)
    o5 = np.zeros(5, dtype=np.float32)
    for i in range(len(positions)):
        forward(x[i], net[0], net[1], net[2], net[3], ews.h, o5)
        assert np.allclose(y[i], o5, atol=2e-6)


def _cross_entropy(net, x, t):
    _, y = adam.forward(net, x)
    return float(-(t * np.log(y) + (1 - t) * np.log(1 - y)).sum() / len(x))


def _small_problem(seed):
    """(rng, a 6-unit net in float64, inputs of 40 positions, random targets)."""
    rng = np.random.default_rng(seed)
    net = tuple(a.astype(np.float64) for a in init_net(6, 2, scale=0.5)[:4])
    net[1][:] = rng.normal(0, 0.5, 6)
    positions = np.array(game_positions(5, 1)[:40], dtype=np.int8)
    x = adam.dense_inputs(positions, np.arange(len(positions))).astype(np.float64)
    return rng, net, x, rng.uniform(0, 1, (len(x), 5))


def _assert_finite_differences(rng, net, grads, loss, rel):
    """Each of 12 weights of each array of ``net``: its gradient in ``grads`` against the
    central difference of ``loss()``."""
    h = 1e-6
    for p, g in zip(net, grads):
        flat, gflat = p.reshape(-1), g.reshape(-1)
        for i in rng.choice(flat.size, min(flat.size, 12), replace=False):
            if flat.size > 12 and abs(gflat[i]) < 1e-9:
                continue  # an input that is zero in every position
            old = flat[i]
            flat[i] = old + h
            up = loss()
            flat[i] = old - h
            down = loss()
            flat[i] = old
            assert gflat[i] == pytest.approx((up - down) / (2 * h), rel=rel, abs=1e-8)


def test_gradients_are_those_of_the_cross_entropy_by_finite_differences():
    rng, net, x, t = _small_problem(1)
    grads, se = adam.gradients(net, x, t)
    _, y = adam.forward(net, x)
    assert se == pytest.approx(((y - t) ** 2).sum())
    _assert_finite_differences(rng, net, grads, lambda: _cross_entropy(net, x, t), 1e-5)


def test_gradients_of_quadratic_units_are_those_of_the_cross_entropy():
    """The same for a net whose hidden layer is ``nn.QUADRATIC`` (a fifth element of the
    net), its units' biases spread so that some saturate."""
    from bgtui.engine import QUADRATIC

    rng, net, x, t = _small_problem(2)
    net[1][:] = rng.normal(0, 2.5, 6)
    net = (*net, QUADRATIC)
    grads, _ = adam.gradients(net, x, t)
    _assert_finite_differences(rng, net, grads, lambda: _cross_entropy(net, x, t), 1e-4)


def test_an_adam_fit_resumed_equals_an_uninterrupted_one_and_lowers_the_error(tmp_path):
    ck = _small_weights(tmp_path)
    build_dataset(tmp_path / "d", ck, DatasetSpec(400, shard=200), log=io.StringIO())
    kw = dict(init=ck, holdout=0.2, optimizer="adam", alpha=0.01, alpha_end=0.001, batch=16)
    log = io.StringIO()
    fit(tmp_path / "one.npz", tmp_path / "d", FitSettings(4, **kw), log=log)
    with pytest.raises(KeyboardInterrupt):
        fit(tmp_path / "two.npz", tmp_path / "d", FitSettings(4, **kw), log=_KilledAfter(2))
    assert load_weights(tmp_path / "two.npz")[1]["fit"]["epochs_done"] == 2
    fit(tmp_path / "two.npz", tmp_path / "d", FitSettings(4, **kw), log=io.StringIO())  # resumed
    a, meta = load_weights(tmp_path / "one.npz")
    b, meta_b = load_weights(tmp_path / "two.npz")
    assert meta["fit"]["epochs_done"] == meta_b["fit"]["epochs_done"] == 4
    assert meta["fit"]["optimizer"] == "adam"
    for net_a, net_b in zip(a[:2], b[:2]):
        assert all(np.array_equal(x, y) for x, y in zip(net_a, net_b))
    recs = [json.loads(x) for x in log.getvalue().splitlines()]
    # the early net's: most of these positions (few held out are the contact net's)
    assert recs[-1]["holdout_early_mse"] < recs[0]["holdout_early_mse"]
    # a fit part-way with one optimiser cannot be finished with the other
    with pytest.raises(ValueError, match="optimizer adam"):
        fit(tmp_path / "one.npz", tmp_path / "d", FitSettings(6, holdout=0.2, optimizer="sgd"))


def _fit_one_pass(path, data, init, optimizer, nets):
    """(weights, meta) of one pass of ``optimizer`` over ``data`` from ``init`` for ``nets``,
    saved at ``path``."""
    fit(
        path,
        data,
        FitSettings(1, init=init, optimizer=optimizer, nets=nets, batch=16),
        log=io.StringIO(),
    )
    return load_weights(path)


def test_a_fit_of_the_contact_net_only_leaves_the_race_net_alone(tmp_path):
    ck = _small_weights(tmp_path)
    build_dataset(tmp_path / "d", ck, DatasetSpec(200, shard=200), log=io.StringIO())
    start = load_weights(ck)[0]
    for opt in ("adam", "sgd"):
        got = _fit_one_pass(tmp_path / f"{opt}.npz", tmp_path / "d", ck, opt, "contact")[0]
        assert all(np.array_equal(x, y) for x, y in zip(got[1], start[1]))
        assert not np.array_equal(got[0][0], start[0][0])
    with pytest.raises(ValueError, match="--nets"):
        fit(tmp_path / "x.npz", tmp_path / "d", FitSettings(1, init=ck, nets="bogus"))


def _old_format(src, dst):
    """``src`` rewritten as a file from before the crashed net: no crashed_* arrays."""
    from bgtui.analysis.checksum import arrays_sha256

    with np.load(src) as z:
        data = {k: z[k] for k in z.files if not k.startswith("crashed_")}
    meta = json.loads(str(data.pop("meta")))
    meta["hidden"].pop("crashed")
    meta["sha256"] = arrays_sha256(data)
    np.savez(dst, meta=np.array(json.dumps(meta)), **data)
    return dst


def test_the_crashed_net_trains_on_its_own_class_and_older_files_keep_it_tied(tmp_path):
    from bgtui.engine.nn import CRASHED_CLASSES
    from bgtui.training.kernels import net_classes

    ck = _small_weights(tmp_path)
    build_dataset(
        tmp_path / "c", ck, DatasetSpec(100, shard=100, crashed_only=True), log=io.StringIO()
    )
    pos = load_dataset(tmp_path / "c")[0]
    # both crashed nets' positions (a side has borne off), both kept
    assert len(pos) == 100 and np.isin(net_classes(pos), CRASHED_CLASSES).all()
    assert len(np.unique(net_classes(pos))) == 2
    start = load_weights(ck)[0]
    for opt in ("adam", "sgd"):
        # only crashed positions: a contact fit changes nothing, a crashed fit only that net
        got = _fit_one_pass(tmp_path / f"k{opt}.npz", tmp_path / "c", ck, opt, "contact")[0]
        assert all(np.array_equal(x, y) for k in (0, 1, 5) for x, y in zip(got[k], start[k]))
        got = _fit_one_pass(tmp_path / f"c{opt}.npz", tmp_path / "c", ck, opt, "crashed")[0]
        assert all(np.array_equal(x, y) for k in (0, 1) for x, y in zip(got[k], start[k]))
        assert not np.array_equal(got[5][0], start[5][0])
    # a file without a crashed net: its contact net values those positions, and a fit of the
    # contact net alone keeps it doing so, learning from them
    old = _old_format(ck, tmp_path / "old.npz")
    ev, meta = load_weights(old)
    assert ev[5] is ev[0] and meta["crashed_is_contact"] is True
    for opt in ("adam", "sgd"):
        got, m = _fit_one_pass(tmp_path / f"t{opt}.npz", tmp_path / "c", old, opt, "contact")
        assert not np.array_equal(got[0][0], start[0][0])
        assert all(np.array_equal(x, y) for x, y in zip(got[5], got[0]))
        assert m["fit"]["tied_crashed"] and "crashed_is_contact" not in m


def _check_tied_net(tmp_path, pos, name, to):
    """Small weights without a ``name`` net of their own (the ``to`` net values those
    positions) fitted one pass on ``pos`` (targets: another net's values) by each optimiser:
    a fit of ``name`` starts it as the ``to`` net and trains it alone; a fit of ``to`` alone
    keeps the two one net, learning from both classes. Returns the starting evaluator and the
    last fit's."""
    from bgtui.analysis.weights import evaluator_digest

    ck = _small_weights(tmp_path)
    other = with_databases((init_net(8, 11), init_net(4, 12)))
    targets = np.array([evaluate0(p, other) for p in pos], dtype=np.float32)
    (tmp_path / "d").mkdir()
    np.savez(tmp_path / "d" / "shard-00000.npz", positions=pos, targets=targets)
    start, meta0 = load_weights(ck)
    flag = f"{name}_is_{to}"
    assert getattr(start, name) is getattr(start, to) and meta0[flag] is True
    with np.load(ck) as z:
        assert not any(f"{name}_{part}" in z.files for part in ("w1", "b1", "w2", "b2"))
    for opt in ("adam", "sgd"):
        got, m = _fit_one_pass(tmp_path / f"n{opt}.npz", tmp_path / "d", ck, opt, name)
        assert getattr(got, name) is not getattr(got, to) and flag not in m
        assert all(np.array_equal(x, y) for x, y in zip(getattr(got, to), getattr(start, to)))
        assert not np.array_equal(getattr(got, name).w1, getattr(start, to).w1)
        assert evaluator_digest(got) != evaluator_digest(start)
        got, m = _fit_one_pass(tmp_path / f"t{opt}.npz", tmp_path / "d", ck, opt, to)
        assert getattr(got, name) is getattr(got, to)
        assert not np.array_equal(getattr(got, to).w1, getattr(start, to).w1)
        assert m["fit"][f"tied_{name}"] and m[flag] is True
    return start, got


def test_the_early_net_trains_on_its_own_class_and_files_without_one_keep_it_tied(tmp_path):
    from bgtui.engine.nn import CONTACT, CONTACT_BAR, EARLY
    from bgtui.training.kernels import net_classes

    # contact positions of whole games, early and later (with a checker on a bar or not:
    # the contact bar net is the contact net's)
    pos = np.array(game_positions(4, 7), dtype=np.int8)
    cls = net_classes(pos)
    pos = pos[np.isin(cls, (EARLY, CONTACT, CONTACT_BAR))]
    cls = net_classes(pos)
    assert (cls == EARLY).sum() > 20 and np.isin(cls, (CONTACT, CONTACT_BAR)).sum() > 20
    _check_tied_net(tmp_path, pos, "early", "contact")


def test_the_early_trailing_net_trains_on_its_own_class_and_files_without_one_keep_it_tied(
    tmp_path,
):
    """The early trailing net against the early net (which the small weights tie in turn to
    the contact net: a chain): trained alone it starts as that net; a fit of the early net
    alone keeps the two one net, the contact net as it was."""
    from bgtui.engine.nn import EARLY, EARLY_TRAILING
    from bgtui.training.kernels import net_classes

    # early contact positions of whole games, seen by either side (one side behind)
    pos = np.array(game_positions(4, 7), dtype=np.int8)
    pos = np.concatenate([pos, -pos[:, ::-1]])
    pos = pos[np.isin(net_classes(pos), (EARLY, EARLY_TRAILING))]
    cls = net_classes(pos)
    assert (cls == EARLY).sum() > 20 and (cls == EARLY_TRAILING).sum() > 20
    start, got = _check_tied_net(tmp_path, pos, "early_trailing", "early")
    assert all(np.array_equal(x, y) for x, y in zip(got.contact, start.contact))
    assert got.early is not got.contact


@pytest.mark.parametrize(
    "name, to", [("early_bar", "early"), ("early_trailing_bar", "early_trailing")]
)
def test_an_early_bar_net_trains_on_its_own_class_and_files_without_one_keep_it_tied(
    tmp_path, name, to
):
    """Each early bar net against the net of the class it splits (the early bar net the early
    net, the early trailing bar net the early trailing net, which the small weights tie in
    turn to the early net and that to the contact net: a chain): trained alone it starts as
    that net; a fit of that net alone keeps the two one net; the contact net (and with it
    every net of the chain not trained) stays as it was."""
    from bgtui.engine.nn import EARLY, EARLY_BAR, EARLY_TRAILING, EARLY_TRAILING_BAR, NET_NAMES
    from bgtui.training.kernels import net_classes

    # early contact positions of whole games, seen by either side, with a checker on a bar
    # and without
    pos = np.array(game_positions(4, 7), dtype=np.int8)
    pos = np.concatenate([pos, -pos[:, ::-1]])
    classes = (NET_NAMES.index(name), NET_NAMES.index(to))
    pos = pos[np.isin(net_classes(pos), classes)]
    cls = net_classes(pos)
    assert set(classes) in ({EARLY_BAR, EARLY}, {EARLY_TRAILING_BAR, EARLY_TRAILING})
    assert min((cls == k).sum() for k in classes) > 20, np.bincount(cls)
    start, got = _check_tied_net(tmp_path, pos, name, to)
    assert start.early_trailing is start.early is start.contact
    assert all(np.array_equal(x, y) for x, y in zip(got.contact, start.contact))
    assert getattr(got, to) is not got.contact


@pytest.mark.parametrize(
    "name, to",
    [
        ("contact_bar", "contact"),
        ("trailing_bar", "trailing"),
        ("mutual_bar", "mutual"),
        ("mutual_trailing_bar", "mutual_trailing"),
        ("anchor_bar", "anchor"),
        ("mutual_anchor_bar", "mutual_anchor"),
        ("trailing_anchor_bar", "trailing_anchor"),
        ("mutual_trailing_anchor_bar", "mutual_trailing_anchor"),
    ],
)
def test_a_bar_net_below_early_pips_trains_on_its_own_class_and_files_without_one_keep_it_tied(
    tmp_path, name, to
):
    """Each bar net below ``EARLY_PIPS`` against the net of the class it splits (the contact
    net, or a net the small weights tie in turn to it, directly or through the trailing,
    mutual or anchor net: a chain): trained alone it starts as that net; a fit of that net
    alone keeps the two one net; in a chain, the contact net stays as it was."""
    from bgtui.engine.nn import NET_NAMES
    from bgtui.training.kernels import net_classes

    # contact positions of whole games below EARLY_PIPS, seen by either side, with a checker
    # on a bar and without (the rarer classes from more games)
    classes = (NET_NAMES.index(name), NET_NAMES.index(to))
    pos = np.array(game_positions(4, 7), dtype=np.int8)
    pos = np.concatenate([pos, -pos[:, ::-1]])
    cls = net_classes(pos)
    if min((cls == k).sum() for k in classes) <= 20:
        pos = np.array(game_positions(4, 40), dtype=np.int8)
        pos = np.concatenate([pos, -pos[:, ::-1]])
    pos = pos[np.isin(net_classes(pos), classes)]
    cls = net_classes(pos)
    assert min((cls == k).sum() for k in classes) > 20, np.bincount(cls)
    start, got = _check_tied_net(tmp_path, pos, name, to)
    assert getattr(start, name) is getattr(start, to) is start.contact
    if to != "contact":  # a chain: the fit of the net of the class it splits unties it
        assert all(np.array_equal(x, y) for x, y in zip(got.contact, start.contact))
        assert getattr(got, to) is not got.contact


def test_the_holding_net_trains_on_its_own_class_and_files_without_one_keep_it_tied(tmp_path):
    from bgtui.engine.nn import CRASHED, CRASHED_CLASSES, HOLDING
    from bgtui.training.kernels import net_classes

    # positions of games seen by either side where a side has borne off
    pos = np.array(game_positions(4, 30), dtype=np.int8)
    pos = np.concatenate([pos, -pos[:, ::-1]])
    pos = pos[np.isin(net_classes(pos), CRASHED_CLASSES)]
    cls = net_classes(pos)
    assert (cls == HOLDING).sum() > 20 and (cls == CRASHED).sum() > 20
    start, got = _check_tied_net(tmp_path, pos, "holding", "crashed")
    # a fit of the crashed nets leaves the contact net alone
    assert all(np.array_equal(x, y) for x, y in zip(got.contact, start.contact))


def test_the_trailing_net_trains_on_its_own_class_and_files_without_one_keep_it_tied(tmp_path):
    from bgtui.engine.nn import CONTACT, CONTACT_BAR, TRAILING, TRAILING_BAR
    from bgtui.training.kernels import net_classes

    # contact positions of whole games below EARLY_PIPS, the side on roll ahead or behind,
    # with a checker on a bar or not (each bar net the net of the class it splits)
    pos = np.array(game_positions(4, 7), dtype=np.int8)
    pos = pos[np.isin(net_classes(pos), (CONTACT, TRAILING, CONTACT_BAR, TRAILING_BAR))]
    cls = net_classes(pos)
    assert np.isin(cls, (TRAILING, TRAILING_BAR)).sum() > 20
    assert np.isin(cls, (CONTACT, CONTACT_BAR)).sum() > 20
    start, got = _check_tied_net(tmp_path, pos, "trailing", "contact")
    # a fit of the contact nets leaves the crashed net alone
    assert all(np.array_equal(x, y) for x, y in zip(got.crashed, start.crashed))


@pytest.mark.parametrize(
    "name, to, classes", [("mutual", "contact", (0, 6)), ("mutual_trailing", "trailing", (5, 7))]
)
def test_the_mutual_nets_train_on_their_own_class_and_files_without_them_keep_them_tied(
    tmp_path, name, to, classes
):
    """The mutual net against the contact net, the mutual trailing net against the trailing
    net (which the small weights tie to the contact net in turn: a chain)."""
    from bgtui.training.kernels import net_classes

    # contact positions of whole games below EARLY_PIPS, seen by either side
    pos = np.array(game_positions(4, 7), dtype=np.int8)
    pos = np.concatenate([pos, -pos[:, ::-1]])
    pos = pos[np.isin(net_classes(pos), classes)]
    cls = net_classes(pos)
    assert (cls == classes[0]).sum() > 20 and (cls == classes[1]).sum() > 20
    start, got = _check_tied_net(tmp_path, pos, name, to)
    assert all(np.array_equal(x, y) for x, y in zip(got.crashed, start.crashed))


@pytest.mark.parametrize(
    "name, to, classes",
    [
        ("anchor", "contact", (0, 8)),
        ("mutual_anchor", "mutual", (6, 9)),
        ("trailing_anchor", "trailing", (5, 10)),
        ("mutual_trailing_anchor", "mutual_trailing", (7, 11)),
    ],
)
def test_the_anchor_nets_train_on_their_own_class_and_files_without_them_keep_them_tied(
    tmp_path, name, to, classes
):
    """Each anchor net against the net of the class it splits (which the small weights tie
    in turn to the contact net, the mutual trailing net through the trailing net: chains):
    trained alone it starts as that net; a fit of that net alone keeps the two one net."""
    from bgtui.training.kernels import net_classes

    # contact positions of whole games below EARLY_PIPS, seen by either side
    pos = np.array(game_positions(4, 7), dtype=np.int8)
    pos = np.concatenate([pos, -pos[:, ::-1]])
    pos = pos[np.isin(net_classes(pos), classes)]
    cls = net_classes(pos)
    assert (cls == classes[0]).sum() > 20 and (cls == classes[1]).sum() > 20
    start, got = _check_tied_net(tmp_path, pos, name, to)
    assert all(np.array_equal(x, y) for x, y in zip(got.crashed, start.crashed))
    # the fit of the net it is tied to: the anchor net is that net, the contact net stays
    if to != "contact":
        assert all(np.array_equal(x, y) for x, y in zip(got.contact, start.contact))


def test_a_fit_from_random_weights_of_one_net_keeps_the_shipped_other(tmp_path):
    ck = _small_weights(tmp_path)
    build_dataset(tmp_path / "d", ck, DatasetSpec(200, shard=200), log=io.StringIO())
    fit(
        tmp_path / "r.npz",
        tmp_path / "d",
        FitSettings(1, init="random", hidden=8, optimizer="adam", nets="contact", batch=16),
        log=io.StringIO(),
    )
    got, meta = load_weights(tmp_path / "r.npz")
    shipped = load_weights("bgtui-0.npz")[0]
    assert got[0][1].shape == (8,)
    assert all(np.array_equal(x, y) for x, y in zip(got[1], shipped[1]))
    assert meta["init"]["random"] == ["contact"]


def test_a_new_fit_gives_the_nets_it_trains_the_hidden_function_asked(tmp_path):
    """``activation``: fresh nets of that function, or a start's nets computing it of their
    weights, for the nets trained only; a resumed fit must name its own; the command line's
    choices are the engine's functions."""
    from bgtui.cli.train import _add_fit_optimizer
    from bgtui.engine import ACTIVATIONS, QUADRATIC, SIGMOID, as_net

    ck = _small_weights(tmp_path)
    build_dataset(tmp_path / "d", ck, DatasetSpec(200, shard=200), log=io.StringIO())
    kw = dict(optimizer="adam", nets="contact", batch=16, activation="quadratic")
    fit(tmp_path / "r.npz", tmp_path / "d", FitSettings(1, init="random", hidden=8, **kw))
    got, meta = load_weights(tmp_path / "r.npz")
    assert as_net(got[0]).act == QUADRATIC and as_net(got[1]).act == SIGMOID
    assert meta["activation"]["contact"] == "quadratic" and "race" not in meta["activation"]
    start = load_weights(ck)[0]
    with pytest.raises(KeyboardInterrupt):  # stopped after its first pass
        fit(tmp_path / "s.npz", tmp_path / "d", FitSettings(2, init=ck, **kw), log=_KilledAfter(1))
    got = load_weights(tmp_path / "s.npz")[0]
    assert as_net(got[0]).act == QUADRATIC and as_net(got[1]).act == as_net(start[1]).act
    with pytest.raises(ValueError, match="resumed trains contact of quadratic units"):
        fit(
            tmp_path / "s.npz",
            tmp_path / "d",
            FitSettings(2, init=ck, **{**kw, "activation": "sigmoid"}),
        )
    fit(tmp_path / "s.npz", tmp_path / "d", FitSettings(2, init=ck, **kw), log=io.StringIO())
    assert load_weights(tmp_path / "s.npz")[1]["fit"]["epochs_done"] == 2  # resumed
    with pytest.raises(ValueError, match="--activation takes sigmoid or quadratic"):
        fit(
            tmp_path / "t.npz",
            tmp_path / "d",
            FitSettings(1, init=ck, **{**kw, "activation": "relu"}),
        )
    import argparse

    p = argparse.ArgumentParser()
    _add_fit_optimizer(p)
    choices = next(a.choices for a in p._actions if a.dest == "activation")
    assert tuple(choices) == ACTIVATIONS


def test_sibling_residuals_by_hand():
    # equity of five probabilities: 2 w - 1 + wg + wbg - lg - lbg
    t = np.zeros((5, 5))
    y = np.zeros((5, 5))
    y[0, 0] = 0.10  # equity error +0.20
    y[1, 1] = 0.05  # +0.05
    y[2, 3] = 0.30  # -0.30 (a lone row of its group)
    y[3, 0] = 0.25  # +0.50, group -1
    y[4, 4] = 0.10  # -0.10
    groups = np.array([4, 4, 7, -1, 4])
    rc = adam.sibling_residuals(y, t, groups)
    mean = (0.20 + 0.05 - 0.10) / 3
    assert rc == pytest.approx([0.20 - mean, 0.05 - mean, 0.0, 0.0, -0.10 - mean], abs=1e-6)
    # an error common to every play of a roll leaves nothing
    assert adam.sibling_residuals(y[:2] * 0 + 0.1, t[:2], np.array([1, 1])) == pytest.approx(
        [0, 0], abs=1e-7
    )


def _rank_loss(net, x, t, groups, w, fixed=None):
    """Cross-entropy over the net's rows and the sibling term over every row of the groups
    (with ``fixed``, the siblings valued elsewhere too), divided by the net's rows."""
    _, y = adam.forward(net, x)
    ya, ta, ga = y, t, groups
    if fixed is not None:
        fy, ft, fg = fixed
        ya, ta, ga = np.concatenate([y, fy]), np.concatenate([t, ft]), np.concatenate([groups, fg])
    rc = adam.sibling_residuals(ya, ta, ga).astype(np.float64)
    ce = -(t * np.log(y) + (1 - t) * np.log(1 - y)).sum()
    return float((ce + w * (rc**2).sum()) / len(x))


def test_gradients_with_the_sibling_term_by_finite_differences():
    rng, net, x, t = _small_problem(2)
    groups = np.repeat(np.arange(10), 4)
    groups[5] = -1
    w = 3.0
    grads, _ = adam.gradients(net, x, t, groups, w)
    plain, _ = adam.gradients(net, x, t)
    assert not np.allclose(grads[2], plain[2])  # the sibling term is there
    _assert_finite_differences(rng, net, grads, lambda: _rank_loss(net, x, t, groups, w), 1e-4)


def test_gradients_with_fixed_siblings_by_finite_differences():
    rng, net, x, t = _small_problem(4)
    groups = np.repeat(np.arange(10), 4)
    fg = np.array([0, 0, 3, 7, 7, 7, 11])  # group 11: fixed rows alone, no net's row
    fixed = (rng.uniform(0.05, 0.95, (len(fg), 5)), rng.uniform(0, 1, (len(fg), 5)), fg)
    w = 3.0
    grads, _ = adam.gradients(net, x, t, groups, w, fixed)
    alone, _ = adam.gradients(net, x, t, groups, w)
    assert not np.allclose(grads[2], alone[2])  # the fixed siblings change the sibling term
    _assert_finite_differences(
        rng, net, grads, lambda: _rank_loss(net, x, t, groups, w, fixed), 1e-4
    )


def test_a_pass_of_the_output_layer_only_leaves_the_first_layer_and_lowers_the_loss():
    """``adam_pass(..., first_layer=False)``: w1 and b1 bit for bit as they were, the output
    layer moved, and the loss lower after some passes; the same passes with the first layer
    change it too."""
    rng, net, x, t = _small_problem(5)
    start = [p.copy() for p in net]
    before = _cross_entropy(net, x, t)
    moments = adam.new_moments(net)
    for _ in range(20):
        order = rng.permutation(len(x))
        adam.adam_pass(net, moments, x, t, order, 8, 1e-2, first_layer=False)
    assert np.array_equal(net[0], start[0]) and np.array_equal(net[1], start[1])
    assert not np.array_equal(net[2], start[2]) and not np.array_equal(net[3], start[3])
    assert _cross_entropy(net, x, t) < before
    both = tuple(p.copy() for p in start)
    adam.adam_pass(both, adam.new_moments(both), x, t, np.arange(len(x)), 8, 1e-2)
    assert not np.array_equal(both[0], start[0])


def test_fixed_siblings_picks_the_rows_of_the_batch_groups():
    fg = np.array([1, 1, 2, 4, 4, 4, 9])
    fy = np.arange(7.0)[:, None] * np.ones((1, 5))
    y, t, g = adam.fixed_siblings((fy, fy + 1, fg), np.array([4, -1, 9, 4, 3, 1]))
    assert list(g) == [1, 1, 4, 4, 4, 9]
    assert list(y[:, 0]) == [0, 1, 3, 4, 5, 6]
    assert list(t[:, 0]) == [1, 2, 4, 5, 6, 7]


def test_group_order_keeps_each_group_together():
    groups = np.array([0, 0, 0, 1, -1, 2, 2, -1, 3, 3, 3, 3])
    order = adam.group_order(groups, np.random.default_rng(3))
    assert sorted(order) == list(range(len(groups)))
    seen = groups[order]
    for g in (0, 1, 2, 3):
        at = np.flatnonzero(seen == g)
        assert at.max() - at.min() == len(at) - 1  # contiguous
    # different seeds, different orders of the groups
    assert any(
        not np.array_equal(order, adam.group_order(groups, np.random.default_rng(s)))
        for s in range(4, 8)
    )


def test_a_fit_with_the_sibling_term_holds_out_whole_groups_and_logs_their_error(tmp_path):
    ck = _small_weights(tmp_path)
    build_dataset(
        tmp_path / "b", ck, DatasetSpec(400, shard=200, children_best=3), log=io.StringIO()
    )
    log = io.StringIO()
    # the small weights have one contact net; without "early" it values every contact row
    kw = dict(init=ck, holdout=0.25, optimizer="adam", alpha=0.01, alpha_end=0.001, batch=32)
    kw.update(nets="contact,race,crashed")
    fit(tmp_path / "r.npz", tmp_path / "b", FitSettings(3, rank_weight=4.0, **kw), log=log)
    recs = [json.loads(x) for x in log.getvalue().splitlines()]
    assert "holdout_contact_sibling_rms" in recs[0]
    assert recs[-1]["holdout_contact_sibling_rms"] < recs[0]["holdout_contact_sibling_rms"]
    assert load_weights(tmp_path / "r.npz")[1]["fit"]["rank_weight"] == 4.0
    fit(
        tmp_path / "p.npz", tmp_path / "b", FitSettings(1, **kw), log=io.StringIO()
    )  # no sibling term
    assert not np.array_equal(
        load_weights(tmp_path / "r.npz")[0][0][0], load_weights(tmp_path / "p.npz")[0][0][0]
    )
    with pytest.raises(ValueError, match="rank_weight"):
        fit(
            tmp_path / "s.npz",
            tmp_path / "b",
            FitSettings(1, init=ck, rank_weight=1.0, optimizer="sgd"),
        )


def test_equities_of_rows_are_the_kernels_equity_row_by_row():
    from bgtui.engine.evaluate import equities, equity

    p = np.random.default_rng(4).uniform(0, 1, (9, 5))
    assert equities(p) == pytest.approx([equity(r) for r in p], abs=1e-6)
    # by hand: a plain win +1, a gammon lost -2
    assert equities(np.array([[1, 0, 0, 0, 0], [0, 0, 0, 1, 0]])) == pytest.approx([1, -2])


def test_weights_fitted_to_other_data_start_a_new_fit_and_a_finished_one_stays_done(tmp_path):
    # a copy of weights whose own fit was of another training set (as the shipped weights'
    # is) is the start of a new fit, not a finished fit to resume
    ck = _small_weights(tmp_path)
    build_dataset(tmp_path / "d1", ck, DatasetSpec(200, shard=200, seed=1), log=io.StringIO())
    build_dataset(tmp_path / "d2", ck, DatasetSpec(200, shard=200, seed=2), log=io.StringIO())
    kw = dict(init=ck, optimizer="adam", batch=16)
    fit(tmp_path / "a.npz", tmp_path / "d1", FitSettings(2, **kw), log=io.StringIO())
    (tmp_path / "b.npz").write_bytes((tmp_path / "a.npz").read_bytes())
    log = io.StringIO()
    fit(tmp_path / "b.npz", tmp_path / "d2", FitSettings(2, **kw), log=log)
    first = json.loads(log.getvalue().splitlines()[0])
    assert first["its_last_fit"]["data"] == str(tmp_path / "d1")
    a, meta_a = load_weights(tmp_path / "a.npz")
    b, meta_b = load_weights(tmp_path / "b.npz")
    assert meta_b["fit"]["data"] == str(tmp_path / "d2") and meta_b["fit"]["epochs_done"] == 2
    assert meta_b["fit_history"][-1]["data"] == str(tmp_path / "d1")
    # two passes over d2 moved the weights (the early net's: most of d2's positions)
    assert not np.array_equal(a.early.w1, b.early.w1)
    # the same command again: that fit is done, nothing changes
    fit(tmp_path / "b.npz", tmp_path / "d2", FitSettings(2, **kw), log=io.StringIO())
    b2, meta_b2 = load_weights(tmp_path / "b.npz")
    assert all(np.array_equal(x, y) for x, y in zip(b[0], b2[0]))
    assert meta_b2["fit"] == meta_b["fit"] and meta_b2["fit_history"] == meta_b["fit_history"]


def test_a_fit_keeps_the_race_side_net_of_the_weights_it_starts_from(tmp_path):
    from bgtui.analysis.weights import save_weights
    from bgtui.training.side import SideFit

    ck = _small_weights(tmp_path)
    ev0, meta0 = load_weights(ck)
    side = SideFit(np.random.default_rng(4), 6).side_net()
    save_weights(ck, ev0, meta0, side=side)
    build_dataset(tmp_path / "d", ck, DatasetSpec(200, shard=200), log=io.StringIO())
    out = tmp_path / "fitted.npz"
    kw = dict(init=ck, optimizer="adam", nets="contact", batch=16)
    for passes in (1, 2):  # a new fit from ``ck``, then the same fit resumed for a second pass
        fit(out, tmp_path / "d", FitSettings(passes, **kw), log=io.StringIO())
        got, meta = load_weights(out)
        assert meta["fit"]["epochs_done"] == passes
        assert not np.array_equal(got.contact.w1, ev0.contact.w1)
        for part in ("w1", "b1", "w2", "b2", "skip"):
            assert np.array_equal(getattr(got.side, part), getattr(side, part)), part
