"""Weights files with and without a holding, a trailing, a mutual, a mutual trailing, an
anchor, an early trailing, an early bar net or a bar net below ``EARLY_PIPS``: what loads,
what is saved, the digest."""

import hashlib
import json

import numpy as np
import pytest

from bgtui.analysis.weights import (
    as_nets,
    evaluator_digest,
    load_weights,
    net_digest,
    nets_of,
    save_weights,
    tied_nets,
    with_databases,
)
from bgtui.engine import NET_NAMES, init_net

#: the nets that may be another's: name, class, the class of the net it is tied to, the flag
TIES = (
    ("holding", 4, 2, "holding_is_crashed"),
    ("trailing", 5, 0, "trailing_is_contact"),
    ("mutual", 6, 0, "mutual_is_contact"),
    ("mutual_trailing", 7, 5, "mutual_trailing_is_trailing"),
    ("anchor", 8, 0, "anchor_is_contact"),
    ("mutual_anchor", 9, 6, "mutual_anchor_is_mutual"),
    ("trailing_anchor", 10, 5, "trailing_anchor_is_trailing"),
    ("mutual_trailing_anchor", 11, 7, "mutual_trailing_anchor_is_mutual_trailing"),
    ("early_trailing", 12, 3, "early_trailing_is_early"),
    ("early_bar", 13, 3, "early_bar_is_early"),
    ("early_trailing_bar", 14, 12, "early_trailing_bar_is_early_trailing"),
    ("contact_bar", 15, 0, "contact_bar_is_contact"),
    ("trailing_bar", 16, 5, "trailing_bar_is_trailing"),
    ("mutual_bar", 17, 6, "mutual_bar_is_mutual"),
    ("mutual_trailing_bar", 18, 7, "mutual_trailing_bar_is_mutual_trailing"),
    ("anchor_bar", 19, 8, "anchor_bar_is_anchor"),
    ("mutual_anchor_bar", 20, 9, "mutual_anchor_bar_is_mutual_anchor"),
    ("trailing_anchor_bar", 21, 10, "trailing_anchor_bar_is_trailing_anchor"),
    ("mutual_trailing_anchor_bar", 22, 11, "mutual_trailing_anchor_bar_is_mutual_trailing_anchor"),
)
#: the flags of a file without mutual nets
MUTUAL_FLAGS = {"mutual_is_contact", "mutual_trailing_is_trailing"}
#: the flags of a file without anchor nets
ANCHOR_FLAGS = {
    "anchor_is_contact",
    "mutual_anchor_is_mutual",
    "trailing_anchor_is_trailing",
    "mutual_trailing_anchor_is_mutual_trailing",
}
#: the flag of a file without an early trailing net
EARLY_TRAILING_FLAGS = {"early_trailing_is_early"}
#: the flags of a file without early bar nets
EARLY_BAR_FLAGS = {"early_bar_is_early", "early_trailing_bar_is_early_trailing"}
#: the flags of a file without bar nets below ``EARLY_PIPS``
BAR_FLAGS = {flag for _, k, _, flag in TIES if k >= 15}
#: the classes of those nets and the class of the net each is tied to in a file with nets of
#: its own up to the early trailing bar net
BAR_TIES = [(k, to) for _, k, to, _ in TIES if k >= 15]
#: the classes below ``EARLY_PIPS`` that a bar class splits, in the order of the bar classes
_SPLIT = (0, 5, 6, 7, 8, 9, 10, 11)


def _with_bars(nets):
    """Fifteen nets (``NET_NAMES`` order, up to the early trailing bar net) and, as the bar
    nets below ``EARLY_PIPS``, the nets of the classes they split."""
    return (*nets, *(nets[j] for j in _SPLIT))


def _nets(k):
    """``k`` distinct small nets (in ``NET_NAMES`` order: contact, race, crashed, early,
    holding, trailing, mutual, mutual_trailing, anchor, mutual_anchor, trailing_anchor,
    mutual_trailing_anchor, early_trailing, early_bar, early_trailing_bar, contact_bar,
    trailing_bar, mutual_bar, mutual_trailing_bar, anchor_bar, mutual_anchor_bar,
    trailing_anchor_bar, mutual_trailing_anchor_bar; as many as asked)."""
    return tuple(init_net(6 if j != 1 else 4, 40 + j) for j in range(k))


#: the ties a file's digest has left out, newest last: (net, the net it is tied to); each era
#: of files hashes a net of its own by name for the ties known before it
_TIES = (
    ("holding", "crashed"),
    ("trailing", "contact"),
    ("mutual", "contact"),
    ("mutual_trailing", "trailing"),
    ("anchor", "contact"),
    ("mutual_anchor", "mutual"),
    ("trailing_anchor", "trailing"),
    ("mutual_trailing_anchor", "mutual_trailing"),
    ("early_trailing", "early"),
    ("early_bar", "early"),
    ("early_trailing_bar", "early_trailing"),
    ("contact_bar", "contact"),
    ("trailing_bar", "trailing"),
    ("mutual_bar", "mutual"),
    ("mutual_trailing_bar", "mutual_trailing"),
    ("anchor_bar", "anchor"),
    ("mutual_anchor_bar", "mutual_anchor"),
    ("trailing_anchor_bar", "trailing_anchor"),
    ("mutual_trailing_anchor_bar", "mutual_trailing_anchor"),
)


def _digest_with_ties(ev, known):
    """The digest of an evaluator by what it is made of, as files made when only the first
    ``known`` ties of ``_TIES`` existed have always had it: the contact, race and crashed
    nets, the early net unless it is the contact net, each net of those ties unless it is the
    net it is tied to (with its name), the side net and the databases' shapes; a net's part
    is the digest of its four arrays, tagged ":quadratic" for a net of quadratic units."""

    def part(net):
        return net_digest(net[:4]) + (":quadratic" if net.act else "")

    h = hashlib.sha256()
    nets = nets_of(ev)[:4] if ev.early is not ev.contact else nets_of(ev)[:3]
    for net in nets:
        h.update(part(net).encode())
    for name, to in _TIES[:known]:
        if getattr(ev, name) is not getattr(ev, to):
            h.update(name.encode())
            h.update(part(getattr(ev, name)).encode())
    if ev.side.w2.shape[0] > 0:
        h.update(
            net_digest((ev.side.w2, ev.side.w1, ev.side.b1, ev.side.b2, ev.side.skip)).encode()
        )
    for db in (ev.two_sided, ev.one_sided):
        h.update(f"db{np.asarray(db).dtype.str}{np.asarray(db).shape};".encode())
    return h.hexdigest()[:16]


def _digest_without_trailing(ev):
    """Files without a trailing net: the holding net tie only."""
    return _digest_with_ties(ev, 1)


def _digest_without_mutual(ev):
    """Files without mutual nets: and the trailing net unless it is the contact net."""
    return _digest_with_ties(ev, 2)


def _digest_without_anchor(ev):
    """Files without anchor nets: and the mutual net unless it is the contact net and the
    mutual trailing net unless it is the trailing net."""
    return _digest_with_ties(ev, 4)


def _digest_without_early_trailing(ev):
    """Files without an early trailing net: and each anchor net unless it is the net of the
    class it splits."""
    return _digest_with_ties(ev, 8)


def _digest_without_early_bar(ev):
    """Files without early bar nets: and the early trailing net unless it is the early
    net."""
    return _digest_with_ties(ev, 9)


def _digest_without_bar(ev):
    """Files without bar nets below ``EARLY_PIPS``: and each early bar net unless it is the
    net of the class it splits."""
    return _digest_with_ties(ev, 11)


def _arrays(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _saved_and_loaded(tmp_path, k):
    """The first ``k`` nets of ``_nets`` saved as a file of its own, which holds the arrays of
    those nets and no other: the file's arrays, and the evaluator and metadata it loads as."""
    nets = _nets(k)
    save_weights(tmp_path / "w.npz", with_databases(nets), {})
    data = _arrays(tmp_path / "w.npz")
    assert sorted(key.rsplit("_", 1)[0] for key in data if key.endswith("_w1")) == sorted(
        NET_NAMES[:k]
    )
    return (data, *load_weights(tmp_path / "w.npz"))


def _assert_saves_as(tmp_path, ev, meta, data):
    """``ev`` and ``meta`` saved again write the arrays ``data`` (its file's), every one the
    same but the metadata."""
    save_weights(tmp_path / "again.npz", ev, meta)
    again = _arrays(tmp_path / "again.npz")
    assert sorted(again) == sorted(data)
    assert all(np.array_equal(again[key], data[key]) for key in data if key != "meta")


def test_as_nets_ties_each_missing_net_to_the_net_of_its_class():
    """Holding to crashed, trailing, mutual and anchor to contact, mutual trailing and
    trailing anchor to trailing, mutual anchor to mutual, mutual trailing anchor to mutual
    trailing, early trailing and early bar to early, early trailing bar to early trailing,
    each bar net below ``EARLY_PIPS`` to the net of the class it splits (each the net its
    tie's chain ends at)."""
    nets = _nets(23)
    c, r, k, e, h, t, m, mt, a, ma, ta, mta, et, eb, etb = nets[:15]
    cb, tb, mb, mtb, ab, mab, tab, mtab = nets[15:]

    def same(xs, ys):
        return len(xs) == len(ys) and all(x is y for x, y in zip(xs, ys))

    assert same(as_nets((c, r)), (c, r, *(c,) * 21))
    assert same(as_nets((c, r, k)), _with_bars((c, r, k, c, k, *(c,) * 10)))
    assert same(as_nets((c, r, k, e)), _with_bars((c, r, k, e, k, c, c, c, c, c, c, c, e, e, e)))
    want = (c, r, k, e, h, c, c, c, c, c, c, c, e, e, e)
    assert same(as_nets((c, r, k, e, h)), _with_bars(want))
    want = (c, r, k, e, h, t, c, t, c, c, t, t, e, e, e)
    assert same(as_nets((c, r, k, e, h, t)), _with_bars(want))
    want = (c, r, k, e, h, t, m, t, c, m, t, t, e, e, e)
    assert same(as_nets((c, r, k, e, h, t, m)), _with_bars(want))
    want = (c, r, k, e, h, t, m, mt, c, m, t, mt, e, e, e)
    assert same(as_nets((c, r, k, e, h, t, m, mt)), _with_bars(want))
    assert same(as_nets(nets[:9]), _with_bars((*nets[:9], m, t, mt, e, e, e)))
    assert same(as_nets(nets[:10]), _with_bars((*nets[:10], t, mt, e, e, e)))
    assert same(as_nets(nets[:11]), _with_bars((*nets[:11], mt, e, e, e)))
    assert same(as_nets(nets[:12]), _with_bars((*nets[:12], e, e, e)))
    assert same(as_nets(nets[:13]), _with_bars((*nets[:13], e, et)))
    assert same(as_nets(nets[:14]), _with_bars((*nets[:14], et)))
    assert same(as_nets(nets[:15]), _with_bars(nets[:15]))
    assert same(as_nets(nets[:16]), (*nets[:16], t, m, mt, a, ma, ta, mta))
    assert same(as_nets(nets[:19]), (*nets[:19], a, ma, ta, mta))
    assert same(as_nets(nets[:22]), (*nets[:22], mta))
    assert same(as_nets(nets), nets)
    # an early trailing net tied to an early net tied to the contact net: a chain, and so
    # are the early bar nets tied to them
    want = (c, r, k, c, *nets[4:12], c, c, c)
    assert same(as_nets((c, r, k, c, *nets[4:12])), _with_bars(want))
    assert same(as_nets((c, r, k, c, *nets[4:13])), _with_bars((c, r, k, c, *nets[4:13], c, et)))
    # the early bar nets of their own, the early trailing net tied to the early net
    assert same(as_nets((*nets[:12], e, eb, etb)), _with_bars((*nets[:12], e, eb, etb)))
    # a bar net tied to an anchor net tied to the net of the class it splits: a chain (the
    # anchor bar net the anchor net the contact net)
    want = (*nets[:8], c, m, t, mt, e, e, e, c, t, m, mt, c, m, t, mt)
    assert same(as_nets(nets[:8]), want)
    # the bar nets of their own, the anchor nets tied
    tied = (*nets[:8], c, m, t, mt, *nets[12:])
    assert same(as_nets(tied), tied)
    ev = with_databases((c, r, k, e))
    assert ev.holding is ev.crashed and as_nets(ev)[4] is as_nets(ev)[2]
    ev = with_databases((c, r, k, e, h))
    assert all(np.array_equal(a, b) for a, b in zip(as_nets(ev)[4], h))
    assert ev.tables[4] is not ev.tables[2]
    assert ev.trailing is ev.contact and ev.tables[5] is ev.tables[0]
    # a chain: the mutual trailing net is the trailing net, which is the contact net
    assert ev.mutual_trailing is ev.trailing is ev.mutual is ev.contact
    assert ev.tables[7] is ev.tables[5] is ev.tables[6] is ev.tables[0]
    assert ev.mutual_trailing_bar is ev.contact and ev.tables[18] is ev.tables[0]
    ev = with_databases((c, r, k, e, h, t))
    assert all(np.array_equal(a, b) for a, b in zip(as_nets(ev)[5], t))
    assert ev.tables[5] is not ev.tables[0]
    assert ev.mutual is ev.contact and ev.tables[6] is ev.tables[0]
    assert ev.mutual_trailing is ev.trailing and ev.tables[7] is ev.tables[5]
    # the anchor nets tied to nets of their own, and the bar nets below EARLY_PIPS to those
    ev = with_databases((c, r, k, e, h, t, m, mt))
    for j, net in ((6, m), (7, mt)):
        assert all(np.array_equal(x, y) for x, y in zip(as_nets(ev)[j], net))
    assert len({id(x) for x in ev.tables}) == 8
    for j, to in ((8, 0), (9, 6), (10, 5), (11, 7), (12, 3), (13, 3), (14, 12), (14, 3)):
        assert nets_of(ev)[j] is nets_of(ev)[to] and ev.tables[j] is ev.tables[to]
    for j, to in ((15, 0), (16, 5), (17, 6), (18, 7), (19, 8), (19, 0), (20, 6), (21, 5)):
        assert nets_of(ev)[j] is nets_of(ev)[to] and ev.tables[j] is ev.tables[to]
    assert ev.mutual_trailing_anchor_bar is ev.mutual_trailing and ev.tables[22] is ev.tables[7]
    ev = with_databases(nets)
    for j, net in enumerate(nets):
        assert all(np.array_equal(x, y) for x, y in zip(as_nets(ev)[j], net))
    assert len({id(x) for x in ev.tables}) == 23
    # the bar nets below EARLY_PIPS tied to the nets of their own of the classes they split:
    # those nets' tables
    ev = with_databases(nets[:15])
    for j, to in BAR_TIES:
        assert nets_of(ev)[j] is nets_of(ev)[to] and ev.tables[j] is ev.tables[to]
    assert len({id(x) for x in ev.tables}) == 15
    # the early bar nets tied to an early and an early trailing net of their own: those
    # nets' tables
    ev = with_databases(nets[:13])
    assert ev.early_bar is ev.early and ev.tables[13] is ev.tables[3]
    assert ev.early_trailing_bar is ev.early_trailing and ev.tables[14] is ev.tables[12]
    assert len({id(x) for x in ev.tables}) == 13
    # the early trailing net and both early bar nets tied to an early net of its own
    ev = with_databases(nets[:12])
    assert ev.early_trailing is ev.early and ev.tables[12] is ev.tables[3]
    assert ev.early_bar is ev.early_trailing_bar is ev.early
    assert ev.tables[13] is ev.tables[14] is ev.tables[3]
    assert len({id(x) for x in ev.tables}) == 12
    # an evaluator's fields as a plain tuple, or its first six (no early net and later)
    ev = with_databases(nets)
    assert same(as_nets(tuple(ev)), nets_of(ev))
    c, r, k = ev.contact, ev.race, ev.crashed
    assert same(as_nets(tuple(ev)[:6]), (c, r, k, c, k, *(c,) * 18))


def test_tied_nets_follow_a_chain_to_the_net_of_its_own():
    """``tied_nets`` names the class of the net a tied net is: the end of its chain."""
    nets = _nets(23)
    anchors = [(8, 0), (9, 6), (10, 5), (11, 7)]
    early = [(12, 3), (13, 3), (14, 3)]  # no early trailing net: every early class the early's
    # the bar nets below EARLY_PIPS with the anchor nets tied: each the net of the class the
    # anchor net's class splits
    bars = [(15, 0), (16, 5), (17, 6), (18, 7), (19, 0), (20, 6), (21, 5), (22, 7)]
    assert tied_nets([with_databases(nets)]) == []
    assert tied_nets([with_databases(nets[:22])]) == [(22, 11)]
    assert tied_nets([with_databases(nets[:19])]) == BAR_TIES[4:]
    assert tied_nets([with_databases(nets[:15])]) == BAR_TIES
    assert tied_nets([with_databases(nets[:14])]) == [(14, 12), *BAR_TIES]
    assert tied_nets([with_databases(nets[:13])]) == [(13, 3), (14, 12), *BAR_TIES]
    assert tied_nets([with_databases(nets[:12])]) == [*early, *BAR_TIES]
    assert tied_nets([with_databases(nets[:8])]) == [*anchors, *early, *bars]
    # six nets of their own: the others tied to the contact or the trailing net
    six = [
        (6, 0),
        (7, 5),
        (8, 0),
        (9, 0),
        (10, 5),
        (11, 5),
        *early,
        (15, 0),
        (16, 5),
        (17, 0),
        (18, 5),
        (19, 0),
        (20, 0),
        (21, 5),
        (22, 5),
    ]
    assert tied_nets([with_databases(nets[:6])]) == six
    assert tied_nets([with_databases(nets[:5])]) == [
        *((k, 0) for k in range(5, 12)),
        *early,
        *((k, 0) for k in range(15, 23)),
    ]
    # tied in one evaluator of two: not tied
    both = [with_databases(nets[:5]), with_databases(nets[:6])]
    assert tied_nets(both) == six
    both = [with_databases(nets[:8]), with_databases(nets)]
    assert tied_nets(both) == []
    both = [with_databases(nets[:13]), with_databases(nets[:14])]
    assert tied_nets(both) == [(14, 12), *BAR_TIES]
    both = [with_databases(nets[:15]), with_databases(nets[:19])]
    assert tied_nets(both) == BAR_TIES[4:]
    # anchor nets of their own, the mutual nets tied (and the mutual bar nets to them)
    c, t, e = nets[0], nets[5], nets[3]
    ev = with_databases((*nets[:6], c, t, *nets[8:15]))
    assert tied_nets([ev]) == [(6, 0), (7, 5), (15, 0), (16, 5), (17, 0), (18, 5), *BAR_TIES[4:]]
    ev = with_databases((*nets[:6], c, t, *nets[8:]))
    assert tied_nets([ev]) == [(6, 0), (7, 5)]
    # the anchor net tied to the contact net, its bar net tied to it (a chain) or its own
    ev = with_databases((*nets[:8], nets[0], *nets[9:19]))
    assert tied_nets([ev]) == [(8, 0), (19, 0), (20, 9), (21, 10), (22, 11)]
    ev = with_databases((*nets[:8], nets[0], *nets[9:]))
    assert tied_nets([ev]) == [(8, 0)]
    # the early net tied to the contact net: the chains of the early trailing and the early
    # bar nets end there, or at an early trailing net of its own, or those are nets of their
    # own
    assert tied_nets([with_databases((*nets[:3], c, *nets[4:12]))]) == [
        (3, 0),
        (12, 0),
        (13, 0),
        (14, 0),
        *BAR_TIES,
    ]
    assert tied_nets([with_databases((*nets[:3], c, *nets[4:13]))]) == [
        (3, 0),
        (13, 0),
        (14, 12),
        *BAR_TIES,
    ]
    assert tied_nets([with_databases((*nets[:3], c, *nets[4:15]))]) == [(3, 0), *BAR_TIES]
    assert tied_nets([with_databases((*nets[:3], c, *nets[4:]))]) == [(3, 0)]
    # early bar nets of their own, the early trailing net tied to the early net
    assert tied_nets([with_databases((*nets[:12], e, *nets[13:]))]) == [(12, 3)]


@pytest.mark.parametrize("name, k, to, flag", TIES)
def test_a_file_with_a_net_of_its_own_round_trips(tmp_path, name, k, to, flag):
    nets = _nets(23)
    ev = with_databases(nets)
    save_weights(tmp_path / "w.npz", ev, {flag: True})
    data = _arrays(tmp_path / "w.npz")
    assert all(f"{n}_w1" in data for n in NET_NAMES)
    got, meta = load_weights(tmp_path / "w.npz")
    assert flag not in meta and meta["hidden"][name] == 6
    assert nets_of(got)[k] is not nets_of(got)[to]
    for a, b in zip(nets_of(got), nets):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert evaluator_digest(got) == evaluator_digest(ev)
    # the net counts: another one, another digest
    other = list(nets)
    other[k] = nets[to]
    assert evaluator_digest(got) != evaluator_digest(with_databases(tuple(other)))


@pytest.mark.parametrize("name, k, to, flag", TIES)
def test_a_file_without_a_net_loads_tied_and_saves_as_it_was(tmp_path, name, k, to, flag):
    nets = list(_nets(23))
    nets[k] = nets[to]
    ev = with_databases(tuple(nets))
    assert nets_of(ev)[k] is nets_of(ev)[to] and ev.tables[k] is ev.tables[to]
    save_weights(tmp_path / "w.npz", ev, {})
    data = _arrays(tmp_path / "w.npz")
    assert not any(f"{name}_{part}" in data for part in ("w1", "b1", "w2", "b2"))
    assert name not in json.loads(str(data["meta"]))["hidden"]
    got, meta = load_weights(tmp_path / "w.npz")
    assert nets_of(got)[k] is nets_of(got)[to] and meta[flag] is True
    assert evaluator_digest(got) == evaluator_digest(ev)
    # saved again: still no net of its own, the same arrays
    _assert_saves_as(tmp_path, got, meta, data)


@pytest.mark.parametrize("k", [5, 6])
def test_a_file_without_mutual_nets_keeps_its_digest_and_arrays(tmp_path, k):
    """A file without mutual nets (every file made before them), with a trailing net of its
    own or without one (the mutual trailing net then the contact net, by the trailing net):
    loads with the mutual net the contact net and the mutual trailing net the trailing net,
    flagged; its digest is what it has always been; saved again, the same arrays."""
    data, got, meta = _saved_and_loaded(tmp_path, k)
    assert got.mutual is got.contact and got.mutual_trailing is got.trailing
    assert (got.trailing is got.contact) == (k == 5)
    assert got.early_trailing is got.early is got.early_bar is got.early_trailing_bar
    assert MUTUAL_FLAGS | ANCHOR_FLAGS | EARLY_TRAILING_FLAGS | EARLY_BAR_FLAGS <= set(meta)
    assert BAR_FLAGS <= set(meta)
    assert evaluator_digest(got) == _digest_without_mutual(got) == _digest_without_anchor(got)
    assert evaluator_digest(got) == _digest_without_early_trailing(got)
    assert evaluator_digest(got) == _digest_without_early_bar(got) == _digest_without_bar(got)
    if k == 5:
        assert evaluator_digest(got) == _digest_without_trailing(got)
    _assert_saves_as(tmp_path, got, meta, data)


@pytest.mark.parametrize("k", [5, 6, 8])
def test_a_file_without_anchor_nets_keeps_its_digest_and_arrays(tmp_path, k):
    """A file without anchor nets (every file made before them), with mutual nets of its own
    or without (and then with a trailing net of its own or without): loads with each anchor
    net the net of the class it splits (the net that one is in turn: a chain), flagged; its
    digest is what it has always been; saved again, the same arrays."""
    data, got, meta = _saved_and_loaded(tmp_path, k)
    assert got.anchor is got.contact and got.mutual_anchor is got.mutual
    assert got.trailing_anchor is got.trailing
    assert got.mutual_trailing_anchor is got.mutual_trailing
    assert (got.mutual is got.contact) == (k < 8)
    assert (got.mutual_trailing_anchor is got.contact) == (k == 5)
    assert ANCHOR_FLAGS <= set(meta) and (MUTUAL_FLAGS <= set(meta)) == (k < 8)
    assert BAR_FLAGS <= set(meta)
    # the anchor bar net the anchor net the contact net: a chain
    assert got.anchor_bar is got.anchor is got.contact
    assert got.mutual_trailing_anchor_bar is got.mutual_trailing
    assert evaluator_digest(got) == _digest_without_anchor(got)
    assert evaluator_digest(got) == _digest_without_early_trailing(got)
    assert evaluator_digest(got) == _digest_without_early_bar(got) == _digest_without_bar(got)
    _assert_saves_as(tmp_path, got, meta, data)


@pytest.mark.parametrize("k", [3, 4, 5, 8, 12])
def test_a_file_without_an_early_trailing_net_keeps_its_digest_and_arrays(tmp_path, k):
    """A file without an early trailing net (every file made before it), with nets of its
    own up to the anchor nets or fewer (down to none but the contact, race and crashed nets):
    loads with the early trailing net the early net (the contact net when the early net is
    it: a chain), flagged; its digest is what it has always been; saved again, the same
    arrays."""
    data, got, meta = _saved_and_loaded(tmp_path, k)
    assert got.early_trailing is got.early and got.tables[12] is got.tables[3]
    assert (got.early_trailing is got.contact) == (k == 3)
    assert EARLY_TRAILING_FLAGS <= set(meta) and (ANCHOR_FLAGS <= set(meta)) == (k < 12)
    to = 0 if k == 3 else 3
    assert tied_nets([got])[-11:-8] == [(12, to), (13, to), (14, to)]
    assert BAR_FLAGS <= set(meta)
    assert evaluator_digest(got) == _digest_without_early_trailing(got)
    assert evaluator_digest(got) == _digest_without_early_bar(got) == _digest_without_bar(got)
    _assert_saves_as(tmp_path, got, meta, data)


@pytest.mark.parametrize("k", [3, 12, 13, 14])
def test_a_file_without_early_bar_nets_keeps_its_digest_and_arrays(tmp_path, k):
    """A file without early bar nets (every file made before them), with an early trailing
    net of its own or without one, with an early net of its own or without one, or with an
    early bar net but no early trailing bar net: loads with the early bar net the early net
    and the early trailing bar net the early trailing net (the net each is in turn: a chain),
    flagged; its digest is what it has always been; saved again, the same arrays."""
    data, got, meta = _saved_and_loaded(tmp_path, k)
    assert got.early_trailing_bar is got.early_trailing and got.tables[14] is got.tables[12]
    assert (got.early_bar is got.early) == (k < 14)
    assert (got.tables[13] is got.tables[3]) == (k < 14)
    assert (got.early_trailing_bar is got.early) == (k < 13)
    assert (got.early_bar is got.contact) == (k == 3)
    flags = {flag for _, _, _, flag in TIES if meta.get(flag)}
    assert ("early_trailing_bar_is_early_trailing" in flags) and (
        ("early_bar_is_early" in flags) == (k < 14)
    )
    assert (EARLY_TRAILING_FLAGS <= flags) == (k < 13)
    assert BAR_FLAGS <= flags
    ties = tied_nets([got])
    # the bar nets below EARLY_PIPS: each the net of the class it splits, a net of its own
    # from k = 12 on, else (k = 3: nets up to the early net) through a chain the contact net
    if k == 3:
        assert ties[-8:] == [(j, 0) for j in range(15, 23)]
    else:
        assert ties[-8:] == BAR_TIES
    ties = ties[:-8]
    if k == 3:
        assert ties[-3:] == [(12, 0), (13, 0), (14, 0)]
    elif k == 12:
        assert ties == [(12, 3), (13, 3), (14, 3)]
    elif k == 13:
        assert ties == [(13, 3), (14, 12)]
    else:
        assert ties == [(14, 12)]
    assert evaluator_digest(got) == _digest_with_ties(got, len(_TIES)) == _digest_without_bar(got)
    if k < 14:
        assert evaluator_digest(got) == _digest_without_early_bar(got)
    else:  # the early bar net counts, by name
        assert evaluator_digest(got) != _digest_without_early_bar(got)
    if k <= 12:
        assert evaluator_digest(got) == _digest_without_early_trailing(got)
    _assert_saves_as(tmp_path, got, meta, data)


@pytest.mark.parametrize("k", [5, 6, 8, 12, 15, 16, 19, 22])
def test_a_file_without_bar_nets_keeps_its_digest_and_arrays(tmp_path, k):
    """A file without bar nets below ``EARLY_PIPS`` (every file made before them), with nets
    of its own up to the early bar nets or fewer (down to no trailing, mutual or anchor nets:
    the bar nets' chains end at the contact net, or at the trailing net too), or with some of
    the bar nets of its own: loads with each bar net it lacks the net of the class it splits
    (the net that one is in turn: a chain), flagged; its digest is what it has always been
    (up to 15 nets: the digest of files before the bar nets; with some, each counts by
    name); saved again, the same arrays."""
    data, got, meta = _saved_and_loaded(tmp_path, k)
    flags = {flag for _, _, _, flag in TIES if meta.get(flag)}
    assert flags & BAR_FLAGS == {flag for _, j, _, flag in TIES if j >= max(k, 15)}
    nets = nets_of(got)
    for j, to in BAR_TIES:
        assert (nets[j] is nets[to] and got.tables[j] is got.tables[to]) == (j >= k)
    ends = {
        5: [(j, 0) for j in range(15, 23)],  # no trailing net: every chain ends at contact
        6: [(15, 0), (16, 5), (17, 0), (18, 5), (19, 0), (20, 0), (21, 5), (22, 5)],
        8: [(15, 0), (16, 5), (17, 6), (18, 7), (19, 0), (20, 6), (21, 5), (22, 7)],
    }.get(k, BAR_TIES[max(k - 15, 0) :])
    assert tied_nets([got])[-len(ends) :] == ends
    if k == 6:
        assert got.contact_bar is got.mutual_bar is got.anchor_bar is got.contact
        assert got.mutual_anchor_bar is got.contact
        assert got.trailing_bar is got.mutual_trailing_bar is got.trailing
        assert got.trailing_anchor_bar is got.mutual_trailing_anchor_bar is got.trailing
    if k >= 16:
        assert tied_nets([got]) == ends
    assert evaluator_digest(got) == _digest_with_ties(got, len(_TIES))
    if k <= 15:
        assert evaluator_digest(got) == _digest_without_bar(got)
    else:  # the bar nets of its own count, by name
        assert evaluator_digest(got) != _digest_without_bar(got)
    _assert_saves_as(tmp_path, got, meta, data)


def test_a_file_of_twenty_three_nets_evaluates_as_the_nets_it_was_saved_from(tmp_path):
    """Twenty-three distinct nets saved and loaded again: every net its own, the same arrays
    and digest, and the same values, bit for bit, of positions of every class (static
    values, and the best play of each roll: the incremental path of move selection)."""
    from bgtui.engine import net_class
    from tests.reference.games import game_positions

    nets = tuple(init_net(8 if j != 1 else 4, 60 + j, scale=0.3) for j in range(23))
    ev = with_databases(nets)
    save_weights(tmp_path / "w.npz", ev, {})
    got, meta = load_weights(tmp_path / "w.npz")
    flags = ANCHOR_FLAGS | MUTUAL_FLAGS | EARLY_TRAILING_FLAGS | EARLY_BAR_FLAGS | BAR_FLAGS
    assert not set(meta) & flags
    assert tied_nets([got]) == [] and len({id(x) for x in nets_of(got)}) == 23
    assert evaluator_digest(got) == evaluator_digest(ev) != _digest_without_bar(ev)
    positions = [np.asarray(p, dtype=np.int8) for p in game_positions(5, 20)]
    classes = {net_class(p) for p in positions}
    assert set(range(23)) - classes <= {4}, classes  # every class but (perhaps) holding
    assert np.array_equal(_values(got, positions), _values(ev, positions))


def _values(ev, positions):
    """The static values of every third of ``positions`` and, for each, the best play's index
    and value for every fourth roll (move selection's incremental path), in one array."""
    from bgtui.engine import (
        MAX_PLAYS,
        ROLLS,
        best_play0,
        evaluate0,
        make_eval_workspace,
        make_move_workspace,
    )

    out = np.zeros((MAX_PLAYS, 26), dtype=np.int8)
    moves = np.zeros((MAX_PLAYS, 8), dtype=np.int8)
    b5 = np.zeros(5, dtype=np.float32)
    mws, ews = make_move_workspace(), make_eval_workspace(8)
    vals = []
    for pos in positions[::3]:
        vals.append(evaluate0(pos, ev))
        for d1, d2 in ROLLS[::4]:
            b, _ = best_play0(pos, int(d1), int(d2), ev, mws, ews, out, moves, b5)
            vals.append(np.concatenate([b5, [b]]))
    return np.concatenate(vals)


def test_the_shipped_weights_have_a_net_for_every_class_but_the_early_bar_ones(tmp_path):
    """The shipped file has a net of its own for every class but the two early bar ones (21
    nets; the early bar net is its early net and the early trailing bar net its early
    trailing net, flagged, the only ties), each net of its own counts in its digest by name,
    which is what files with bar nets below ``EARLY_PIPS`` have always had (and differs from
    every older era's), and a copy saved and loaded again holds the arrays of every net but
    the early bar ones with the same values and digest, tied as before."""
    ev, meta = load_weights("bgtui-0.npz")
    nets = nets_of(ev)
    assert len(NET_NAMES) == 23 and len({id(net) for net in nets}) == 21
    assert len({id(table) for table in ev.tables}) == 21
    assert ev.early_bar is ev.early and ev.tables[13] is ev.tables[3]
    assert ev.early_trailing_bar is ev.early_trailing and ev.tables[14] is ev.tables[12]
    assert ev.early_trailing is not ev.early and ev.tables[12] is not ev.tables[3]
    assert tied_nets([ev]) == [(13, 3), (14, 12)]
    assert {key for key in meta if "_is_" in key} == EARLY_BAR_FLAGS
    digest = evaluator_digest(ev)
    assert digest == _digest_with_ties(ev, len(_TIES))
    assert digest not in (
        _digest_without_bar(ev),
        _digest_without_early_bar(ev),
        _digest_without_early_trailing(ev),
        _digest_without_anchor(ev),
        _digest_without_mutual(ev),
        _digest_without_trailing(ev),
    )
    save_weights(tmp_path / "copy.npz", ev, meta)
    arrays = _arrays(tmp_path / "copy.npz")
    for name in NET_NAMES:
        saved = [f"{name}_{part}" in arrays for part in ("w1", "b1", "w2", "b2")]
        assert saved == [name not in ("early_bar", "early_trailing_bar")] * 4, name
    flags = {key for key in json.loads(str(arrays["meta"])) if "_is_" in key}
    assert flags == EARLY_BAR_FLAGS
    got, again = load_weights(tmp_path / "copy.npz")
    assert evaluator_digest(got) == digest
    assert tied_nets([got]) == [(13, 3), (14, 12)]
    assert {key for key in again if "_is_" in key} == EARLY_BAR_FLAGS
    for mine, theirs in zip(nets_of(got), nets):
        assert all(np.array_equal(x, y) for x, y in zip(mine, theirs))


#: each bar class below ``EARLY_PIPS`` and the class whose net's first layer it may share
BAR_BASES = ((15, 0), (16, 5), (17, 6), (18, 7), (19, 8), (20, 9), (21, 10), (22, 11))


def _bar_nets_over_their_bases():
    """Twenty-three nets, each bar net below ``EARLY_PIPS`` with a copy of its base net's first
    layer and an output layer of its own."""
    nets = [init_net(8 if j != 1 else 4, 80 + j, scale=0.3) for j in range(23)]
    for k, base in BAR_BASES:
        nets[k] = (nets[base][0].copy(), nets[base][1].copy(), nets[k][2], nets[k][3])
    return tuple(nets)


def test_nets_that_share_a_first_layer_evaluate_as_when_apart(tmp_path):
    """A file whose metadata says each bar net's first layer is its base net's loads with the
    very arrays and tables shared (one pre-activation of a parent serves both nets in move
    selection), and values positions of every class, static and by the best play of each
    roll, bit for bit as the same nets with their arrays apart."""
    from tests.reference.games import game_positions

    nets = _bar_nets_over_their_bases()
    apart = with_databases(nets)
    shared = {NET_NAMES[k]: NET_NAMES[base] for k, base in BAR_BASES}
    save_weights(tmp_path / "w.npz", apart, {"first_layer_of": shared})
    got, meta = load_weights(tmp_path / "w.npz")
    assert meta["first_layer_of"] == shared
    mine = nets_of(got)
    for k, base in BAR_BASES:
        assert mine[k][0] is mine[base][0] and mine[k][1] is mine[base][1]
        assert got.tables[k] is got.tables[base]
        assert not np.array_equal(mine[k][2], mine[base][2])
        assert nets_of(apart)[k][0] is not nets_of(apart)[base][0]
    positions = [np.asarray(p, dtype=np.int8) for p in game_positions(5, 20)]
    assert np.array_equal(_values(got, positions), _values(apart, positions))
    # saved again after a fit changed one of them: that pair is no longer said to be shared
    changed = list(nets_of(got))
    changed[15] = (changed[15][0] + 0.01, *changed[15][1:])
    save_weights(tmp_path / "c.npz", tuple(changed), dict(meta))
    again, meta2 = load_weights(tmp_path / "c.npz")
    assert "contact_bar" not in meta2["first_layer_of"]
    assert len(meta2["first_layer_of"]) == len(shared) - 1
    assert nets_of(again)[16][0] is nets_of(again)[5][0]


def _with_meta(path, out, change=None, **meta):
    """The weights file ``path`` written again to ``out`` as another program might: ``meta``
    set in its metadata and the arrays of ``change`` (name -> array) replaced, with a
    matching checksum."""
    from bgtui.analysis.checksum import arrays_sha256
    from bgtui.analysis.weights import _write_npz

    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files if k != "meta"}
        old = json.loads(str(z["meta"]))
    arrays.update(change or {})
    old.update(meta, sha256=arrays_sha256(arrays))
    _write_npz(out, old, arrays)


def test_a_first_layer_said_shared_but_not_is_refused(tmp_path):
    """Metadata that names a first layer shared where the arrays differ, or names the race
    net, is refused with a message that says which nets."""
    from bgtui.analysis.weights import WeightsError

    save_weights(tmp_path / "w.npz", with_databases(_bar_nets_over_their_bases()), {})
    with np.load(tmp_path / "w.npz") as z:
        w1 = z["contact_bar_w1"] + np.float32(0.01)
    _with_meta(
        tmp_path / "w.npz",
        tmp_path / "x.npz",
        {"contact_bar_w1": w1},
        first_layer_of={"contact_bar": "contact"},
    )
    with pytest.raises(
        WeightsError, match="contact_bar net's first layer is not the contact net's"
    ):
        load_weights(tmp_path / "x.npz")
    _with_meta(tmp_path / "w.npz", tmp_path / "r.npz", first_layer_of={"race": "contact"})
    with pytest.raises(WeightsError, match="not two contact nets"):
        load_weights(tmp_path / "r.npz")
    _with_meta(tmp_path / "w.npz", tmp_path / "l.npz", first_layer_of=["contact_bar"])
    with pytest.raises(WeightsError, match="first_layer_of is not a table of net names"):
        load_weights(tmp_path / "l.npz")
    _with_meta(tmp_path / "w.npz", tmp_path / "ok.npz", first_layer_of={"contact_bar": "contact"})
    ev, _ = load_weights(tmp_path / "ok.npz")
    assert nets_of(ev)[15][0] is nets_of(ev)[0][0]
