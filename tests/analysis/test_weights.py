"""Weights files with and without a holding net: what loads, what is saved, the digest."""

import hashlib
import json

import numpy as np

from bgtui.analysis.weights import (
    as_nets,
    evaluator_digest,
    load_weights,
    net_digest,
    nets_of,
    save_weights,
    with_databases,
)
from bgtui.engine import init_net


def _nets(k):
    """``k`` distinct small nets (contact, race, crashed, early, holding, as many as asked)."""
    return tuple(init_net(6 if j != 1 else 4, 40 + j) for j in range(k))


def _digest_without_holding(ev):
    """The digest of an evaluator whose holding net is its crashed net, by what it is made of:
    the contact, race and crashed nets, the early net unless it is the contact net, the side
    net and the databases' shapes (what files without a holding net have always had)."""
    h = hashlib.sha256()
    nets = nets_of(ev)[:4] if ev.early is not ev.contact else nets_of(ev)[:3]
    for net in nets:
        h.update(net_digest(net).encode())
    if ev.side.w2.shape[0] > 0:
        h.update(net_digest(ev.side[1:]).encode())
    for db in (ev.two_sided, ev.one_sided):
        h.update(f"db{np.asarray(db).dtype.str}{np.asarray(db).shape};".encode())
    return h.hexdigest()[:16]


def _arrays(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_as_nets_ties_the_holding_net_to_the_crashed_net():
    c, r, k, e, h = _nets(5)

    def same(xs, ys):
        return len(xs) == len(ys) and all(x is y for x, y in zip(xs, ys))

    assert same(as_nets((c, r)), (c, r, c, c, c))
    assert same(as_nets((c, r, k)), (c, r, k, c, k))
    assert same(as_nets((c, r, k, e)), (c, r, k, e, k))
    assert same(as_nets((c, r, k, e, h)), (c, r, k, e, h))
    ev = with_databases((c, r, k, e))
    assert ev.holding is ev.crashed and as_nets(ev)[4] is as_nets(ev)[2]
    ev = with_databases((c, r, k, e, h))
    assert all(np.array_equal(a, b) for a, b in zip(as_nets(ev)[4], h))
    assert ev.tables[4] is not ev.tables[2]


def test_a_file_with_a_holding_net_round_trips(tmp_path):
    nets = _nets(5)
    ev = with_databases(nets)
    save_weights(tmp_path / "w.npz", ev, {"holding_is_crashed": True})
    data = _arrays(tmp_path / "w.npz")
    assert all(f"{name}_w1" in data for name in ("contact", "race", "crashed", "early", "holding"))
    got, meta = load_weights(tmp_path / "w.npz")
    assert "holding_is_crashed" not in meta and meta["hidden"]["holding"] == 6
    assert got.holding is not got.crashed
    for a, b in zip(nets_of(got), nets):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert evaluator_digest(got) == evaluator_digest(ev)
    # the holding net counts: another one, another digest
    other = with_databases((*nets[:4], nets[2]))
    assert evaluator_digest(got) != evaluator_digest(other)


def test_a_file_without_a_holding_net_loads_tied_and_saves_as_it_was(tmp_path):
    nets = _nets(4)
    ev = with_databases(nets)
    assert ev.holding is ev.crashed and ev.tables[4] is ev.tables[2]
    save_weights(tmp_path / "w.npz", ev, {})
    data = _arrays(tmp_path / "w.npz")
    assert not any(k.startswith("holding_") for k in data)
    assert "holding" not in json.loads(str(data["meta"]))["hidden"]
    got, meta = load_weights(tmp_path / "w.npz")
    assert got.holding is got.crashed and meta["holding_is_crashed"] is True
    assert evaluator_digest(got) == evaluator_digest(ev) == _digest_without_holding(got)
    # saved again: still no holding net of its own, the same arrays
    save_weights(tmp_path / "again.npz", got, meta)
    again = _arrays(tmp_path / "again.npz")
    assert sorted(again) == sorted(data)
    assert all(np.array_equal(again[k], data[k]) for k in data if k != "meta")


def test_the_shipped_weights_round_trip_with_their_own_holding_net(tmp_path):
    """The shipped file has a holding net of its own: a copy saved and loaded again has the
    same nets and digest, and the digest counts the holding net."""
    ev, meta = load_weights("bgtui-0.npz")
    assert ev.holding is not ev.crashed and "holding_is_crashed" not in meta
    assert evaluator_digest(ev) != _digest_without_holding(ev)
    save_weights(tmp_path / "copy.npz", ev, meta)
    assert "holding_w1" in _arrays(tmp_path / "copy.npz")
    got = load_weights(tmp_path / "copy.npz")[0]
    for a, b in zip(nets_of(got), nets_of(ev)):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert evaluator_digest(got) == evaluator_digest(ev)
