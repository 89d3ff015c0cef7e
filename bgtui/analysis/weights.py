"""Locate, check, load and save the evaluator's weights (``weights/*.npz``).

A weights file holds, for each net in ``NET_NAMES``, arrays ``<net>_w1``, ``<net>_b1``,
``<net>_w2``, ``<net>_b2`` and a JSON ``meta`` string: format, input-encoding version, number
of inputs, hidden sizes, games trained, training settings and the SHA-256 of the arrays.
A file made before the crashed net existed (no ``crashed_*`` arrays) loads with its contact net
valuing the crashed positions too, as it did when it was trained; so does a file without an early
contact net (``early_*``) for the contact positions from ``EARLY_PIPS`` pips up. A file without a
holding net (``holding_*``) loads with its crashed net valuing those positions too (contact where
only the side not on roll has borne off), and a file without a trailing net (``trailing_*``)
with its contact net valuing those (contact below ``EARLY_PIPS`` pips, the side on roll behind
in the race). A file without a mutual net (``mutual_*``) loads with its contact net valuing
those (contact below ``EARLY_PIPS`` pips with a checker of each side back, the side on roll
not behind), and one without a mutual trailing net (``mutual_trailing_*``) with its trailing
net (the same, the side on roll behind; the contact net when the trailing net is it).
Each of these four classes below ``EARLY_PIPS`` has an anchor class, its positions where a
side has an anchor in the other side's home board (``nn.has_anchor``): a file without an
anchor net (``anchor_*``) loads with its contact net valuing those, one without a mutual
anchor net (``mutual_anchor_*``) with its mutual net, one without a trailing anchor net
(``trailing_anchor_*``) with its trailing net and one without a mutual trailing anchor net
(``mutual_trailing_anchor_*``) with its mutual trailing net (each the net that one is in
turn, when it is tied too). The early positions where the side on roll is behind in the race
are the early trailing net's: a file without one (``early_trailing_*``) loads with its early
net valuing those (the contact net when the early net is it). The early and early trailing
positions with a checker on either bar (``nn.on_bar``) are the early bar and early trailing
bar nets': a file without an early bar net (``early_bar_*``) loads with its early net valuing
those, one without an early trailing bar net (``early_trailing_bar_*``) with its early
trailing net (each the net that one is in turn, when it is tied too). Likewise each of the
eight classes below ``EARLY_PIPS`` has a bar class, its positions with a checker on either
bar: a file without a contact bar, trailing bar, mutual bar, mutual trailing bar, anchor bar,
mutual anchor bar, trailing anchor bar or mutual trailing anchor bar net (``contact_bar_*``,
..., ``mutual_trailing_anchor_bar_*``) loads with the net of the class it splits valuing
those (the contact net, the trailing net, ...; the net that one is in turn, when it is tied
too). Arrays ``side_w1``,
``side_b1``, ``side_w2``, ``side_b2``, ``side_skip`` hold the race side net (``bgtui.engine``'s
``make_side_net``), which values the races the bear-off databases do not; a file without them
values those races by its race net. A ``meta`` entry ``first_layer_of`` (net name -> net
name) says that a net's first layer (``w1``, ``b1``) is another's: the file holds it for both,
and the loaded nets share the arrays, so that a parent's pre-activation serves both in move
selection; each keeps its own output layer.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from bgtui.analysis.atomic import atomic_write
from bgtui.analysis.checksum import arrays_sha256
from bgtui.engine import (
    ACTIVATIONS,
    CONTACT,
    CRASHED,
    EARLY,
    INPUT_VERSION,
    NET_NAMES,
    NUM_INPUTS,
    RACE,
    SIDE_INPUTS,
    SIDE_OUTPUTS,
    SIGMOID,
    TIED_CLASSES,
    Evaluator,
    Net,
    aligned,
    as_net,
    make_evaluator,
    make_side_net,
    make_tables,
)

WEIGHTS_FORMAT = 1
DEFAULT_WEIGHTS = "bgtui-0.npz"
_PARTS = ("w1", "b1", "w2", "b2")
_SIDE_PARTS = ("w1", "b1", "w2", "b2", "skip")

#: the nets a weights file may lack, each with the net that values its positions then and the
#: metadata flag :func:`load_weights` sets: crashed, early, trailing, mutual and anchor
#: positions the contact net's, holding positions the crashed net's, mutual trailing and
#: trailing anchor positions the trailing net's, mutual anchor positions the mutual net's,
#: mutual trailing anchor positions the mutual trailing net's, early trailing and early bar
#: positions the early net's, early trailing bar positions the early trailing net's, the
#: positions of each bar class below ``EARLY_PIPS`` the net's of the class it splits (the
#: engine's ``TIED_CLASSES``, and the crashed net). Ties chain (a holding net tied to a
#: crashed net tied to the contact net is the contact net, and so are a mutual trailing
#: anchor net tied to a mutual trailing net tied to a trailing net tied to it, an early
#: trailing bar net tied to an early trailing net tied to an early net tied to it and an
#: anchor bar net tied to an anchor net tied to it): each net is tied to one before it in
#: ``NET_NAMES`` and in this table, so that a file's nets loaded in that order are the nets
#: their chains end at (:func:`tied_nets` names those).
TIED_TO = {
    NET_NAMES[k]: (NET_NAMES[to], f"{NET_NAMES[k]}_is_{NET_NAMES[to]}")
    for k, to in ((CRASHED, CONTACT), *TIED_CLASSES)
}

#: (class, the class of the net it is) of the nets of :data:`TIED_TO` that may be that other
#: net in saved weights too: early, holding, trailing, the mutual, the anchor, the early
#: trailing, the early bar and the bar nets below ``EARLY_PIPS`` (a crashed net is always
#: saved as a net of its own)
TIES = tuple(
    (NET_NAMES.index(name), NET_NAMES.index(to))
    for name, (to, _) in TIED_TO.items()
    if name != "crashed"
)


class WeightsError(ValueError):
    """The weights file is missing, damaged, or does not fit this version of the code."""


def weights_dirs() -> list[Path]:
    """Where weights are looked for: $BGTUI_WEIGHTS_DIR, the installed package, the checkout."""
    dirs = []
    env = os.environ.get("BGTUI_WEIGHTS_DIR")
    if env:
        dirs.append(Path(env))
    here = Path(__file__).resolve().parent.parent
    dirs.append(here / "data" / "weights")
    dirs.append(here.parent / "weights")
    return dirs


def find_weights(name: str = DEFAULT_WEIGHTS) -> Path:
    p = Path(name)
    if p.is_file():
        return p
    for d in weights_dirs():
        if (d / name).is_file():
            return d / name
    raise WeightsError(
        f"weights file {name!r} not found (looked in: {', '.join(str(d) for d in weights_dirs())})"
    )


def save_weights(path, ev, meta: dict, side=None) -> None:
    """Write the nets of ``ev`` (an evaluator context or a tuple of nets), the race side net
    (``side``, by default an evaluator's own) and ``meta`` atomically to ``path``."""
    raw = as_nets(ev)
    nets = tuple(as_net(net) for net in raw)
    if side is None and isinstance(ev, Evaluator):
        side = ev.side
    arrays = {}
    tied = {NET_NAMES[k] for k, to in TIES if raw[k] is raw[to]}  # saved as that other net
    for name, net in zip(NET_NAMES, nets):
        if name in tied:
            continue
        for part, a in zip(_PARTS, net):
            arrays[f"{name}_{part}"] = np.asarray(a, dtype=np.float32)
    activation = {
        name: ACTIVATIONS[net.act]
        for name, net in zip(NET_NAMES, nets)
        if f"{name}_b1" in arrays and net.act != SIGMOID
    }
    hidden = {
        name: int(net.b1.shape[0]) for name, net in zip(NET_NAMES, nets) if f"{name}_b1" in arrays
    }
    if side is not None and side.w2.shape[0] > 0:
        for part in _SIDE_PARTS:
            arrays[f"side_{part}"] = np.asarray(getattr(side, part), dtype=np.float32)
        hidden["side"] = int(side.w2.shape[0])
    meta = dict(meta)
    for name, (_, flag) in TIED_TO.items():
        if f"{name}_b1" in arrays:  # the file now holds a net of its own for these positions
            meta.pop(flag, None)
    by_name = {name: net for name, net in zip(NET_NAMES, nets) if name not in tied}
    shared = {  # a net tied since then is saved as the net it is
        name: other
        for name, other in meta.pop("first_layer_of", {}).items()
        if name in by_name and other in by_name and same_first_layer(by_name[name], by_name[other])
    }
    if shared:  # what is still so: a fit may have changed one of the two
        meta["first_layer_of"] = shared
    meta.pop("activation", None)
    if activation:  # the nets whose hidden layer is not of sigmoids
        meta["activation"] = activation
    meta.update(
        format=WEIGHTS_FORMAT,
        input_version=INPUT_VERSION,
        num_inputs=NUM_INPUTS,
        hidden=hidden,
        sha256=arrays_sha256(arrays),
    )
    _write_npz(path, meta, arrays)


def _write_npz(path, meta: dict, arrays: dict) -> None:
    """Write ``arrays`` and the JSON ``meta`` atomically to ``path`` (compressed npz)."""
    atomic_write(
        path,
        lambda f: np.savez_compressed(f, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays),
        mode=0o644,
    )


def load_weights(path=DEFAULT_WEIGHTS):
    """Return ``(ev, meta)``; raise :class:`WeightsError` saying what does not fit."""
    path = find_weights(str(path))
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except Exception as exc:  # zip/npz damage
        raise WeightsError(f"{path}: not a readable weights file ({exc})") from None
    if "meta" not in data:
        raise WeightsError(f"{path}: no metadata; not a bgtui weights file")
    meta = json.loads(str(data.pop("meta")))
    if meta.get("format") != WEIGHTS_FORMAT:
        raise WeightsError(
            f"{path}: weights format {meta.get('format')}, this bgtui reads {WEIGHTS_FORMAT}"
        )
    if meta.get("input_version") != INPUT_VERSION or meta.get("num_inputs") != NUM_INPUTS:
        raise WeightsError(
            f"{path}: made for input encoding v{meta.get('input_version')} with "
            f"{meta.get('num_inputs')} inputs; this bgtui uses v{INPUT_VERSION} with {NUM_INPUTS}"
        )
    if arrays_sha256(data) != meta.get("sha256"):
        raise WeightsError(f"{path}: checksum mismatch; the file is damaged")
    acts = activations_of(path, meta)
    ev = []
    for name in NET_NAMES:
        if name in TIED_TO and not any(f"{name}_{p}" in data for p in _PARTS):
            to, flag = TIED_TO[name]
            ev.append(ev[NET_NAMES.index(to)])  # that net values these positions too
            meta[flag] = True
            continue
        try:
            net = tuple(aligned(data[f"{name}_{p}"]) for p in _PARTS)  # cache-line aligned
        except KeyError as exc:
            raise WeightsError(f"{path}: missing array {exc}") from None
        w1, b1, w2, b2 = net
        h = b1.shape[0]
        if w1.shape != (NUM_INPUTS, h) or w2.shape != (5, h) or b2.shape != (5,):
            raise WeightsError(f"{path}: {name} net has inconsistent shapes")
        ev.append(Net(*net, acts.get(name, SIGMOID)))
    _share_first_layers(path, ev, meta.get("first_layer_of", {}))
    side = side_net_of_arrays(path, data)
    meta["path"] = str(path)
    return with_databases(tuple(ev), side=side), meta


def activations_of(path, meta: dict) -> dict:
    """The weights file ``path``'s metadata ``activation`` (net name -> its hidden function's
    name, for the nets whose hidden layer is not of sigmoids) as net name -> ``nn.ACTIVATIONS``
    index; raise :class:`WeightsError` naming what does not fit."""
    table = meta.get("activation", {})
    if not isinstance(table, dict):
        raise WeightsError(f"{path}: activation is not a table of net names")
    acts = {}
    for name, kind in table.items():
        if name not in NET_NAMES:
            raise WeightsError(f"{path}: activation names {name!r}, not a net")
        if kind not in ACTIVATIONS:
            raise WeightsError(
                f"{path}: the {name} net's hidden function {kind!r} is not one of "
                f"{', '.join(ACTIVATIONS)}"
            )
        acts[name] = ACTIVATIONS.index(kind)
    return acts


def same_first_layer(a, b) -> bool:
    """Whether nets ``a`` and ``b`` (w1, b1, w2, b2) have the same first layer, value for value."""
    return np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


def _share_first_layers(path, ev: list, shared: dict) -> None:
    """Give each net NAME of ``shared`` (the metadata's ``first_layer_of``: NAME -> OTHER) the
    very arrays of OTHER's first layer, which the file holds for both: the evaluator then
    builds one table for the two and computes a parent's pre-activation once for both nets
    (``evaluate._same_preact``); each keeps its own output layer."""
    if not isinstance(shared, dict):
        raise WeightsError(f"{path}: first_layer_of is not a table of net names")
    for name, other in shared.items():
        k = NET_NAMES.index(name) if name in NET_NAMES else RACE
        j = NET_NAMES.index(other) if other in NET_NAMES else RACE
        if RACE in (k, j):
            raise WeightsError(
                f"{path}: first_layer_of names {name!r} -> {other!r}: not two contact nets"
            )
        if not same_first_layer(ev[k], ev[j]):
            raise WeightsError(f"{path}: the {name} net's first layer is not the {other} net's")
        ev[k] = Net(ev[j].w1, ev[j].b1, ev[k].w2, ev[k].b2, ev[k].act)


def side_net_of_arrays(path, data: dict):
    """The race side net of a weights file's arrays, or None if it has none."""
    if not any(k.startswith("side_") for k in data):
        return None
    try:
        w1, b1, w2, b2, skip = (data[f"side_{p}"] for p in _SIDE_PARTS)
    except KeyError as exc:
        raise WeightsError(f"{path}: missing array {exc}") from None
    h = b1.shape[0]
    if (
        w1.shape != (SIDE_INPUTS, h)
        or w2.shape != (h, SIDE_OUTPUTS)
        or b2.shape != (SIDE_OUTPUTS,)
        or skip.shape != (SIDE_INPUTS, SIDE_OUTPUTS)
    ):
        raise WeightsError(f"{path}: the race side net has inconsistent shapes")
    return make_side_net(w1, b1, w2, b2, skip)


def tied_nets(evs) -> list:
    """The (class, class of the net it is) of the nets of :data:`TIES` that are the net they
    are tied to in every one of the evaluators ``evs``; the class named is that of a net of
    its own there, a chain of ties followed to its end (a mutual trailing anchor net that is
    the mutual trailing net that is the trailing net that is the contact net, or an early
    trailing bar net that is the early trailing net that is the early net that is the
    contact net, or an anchor bar net that is the anchor net that is the contact net: the
    contact net's class)."""
    nets = [nets_of(ev) for ev in evs]
    to = {k: t for k, t in TIES if all(n[k] is n[t] for n in nets)}
    out = []
    for k, t in to.items():
        while t in to:
            t = to[t]
        out.append((k, t))
    return out


def nets_of(ev):
    """The nets of an evaluator, in ``NET_NAMES`` order (contact, race, crashed, early,
    holding, trailing, mutual, mutual_trailing, anchor, mutual_anchor, trailing_anchor,
    mutual_trailing_anchor, early_trailing, early_bar, early_trailing_bar, contact_bar,
    trailing_bar, mutual_bar, mutual_trailing_bar, anchor_bar, mutual_anchor_bar,
    trailing_anchor_bar, mutual_trailing_anchor_bar: its fields of those names)."""
    return tuple(getattr(ev, name) for name in NET_NAMES)


def as_nets(x):
    """The twenty-three nets of an evaluator context or of a tuple of two to twenty-three
    nets in ``NET_NAMES`` order: those missing are the nets they are tied to
    (:data:`TIED_TO`; with two, contact and race, the contact net values every contact
    class)."""
    if isinstance(x, Evaluator):
        return nets_of(x)
    if 6 <= len(x) <= len(NET_NAMES) + 4 and isinstance(x[2], np.ndarray):
        # an evaluator context (its third field the two-sided database, not a net): its nets
        # from the sixth on are crashed, side (not a net), early, holding, trailing, mutual,
        # mutual_trailing, anchor, mutual_anchor, trailing_anchor, mutual_trailing_anchor,
        # early_trailing, early_bar, early_trailing_bar and the bar nets below EARLY_PIPS
        x = (x[0], x[1], x[5], *x[7:])
    if not 2 <= len(x) <= len(NET_NAMES):
        raise ValueError(
            f"expected an evaluator context or 2-{len(NET_NAMES)} nets, got a tuple of {len(x)}"
        )
    nets = list(x)
    for name in NET_NAMES[len(x) :]:
        nets.append(nets[NET_NAMES.index(TIED_TO[name][0])])
    return tuple(nets)


def with_databases(nets, bearoff: bool = False, tables: bool = True, side=None):
    """The evaluator context ``(contact_net, race_net, two_sided_win, one_sided_dist,
    (the tables of each net in ``NET_NAMES`` order), crashed_net, side_net, early_net,
    holding_net, trailing_net, mutual_net, mutual_trailing_net, anchor_net, mutual_anchor_net,
    trailing_anchor_net, mutual_trailing_anchor_net, early_trailing_net, early_bar_net,
    early_trailing_bar_net, contact_bar_net, trailing_bar_net, mutual_bar_net,
    mutual_trailing_bar_net, anchor_bar_net, mutual_anchor_bar_net, trailing_anchor_bar_net,
    mutual_trailing_anchor_bar_net)`` of ``nets`` (in ``NET_NAMES`` order; those missing are
    the nets they are tied to, :func:`as_nets`) and the race side net ``side`` (by default an
    evaluator's own; else none).

    With ``bearoff`` the bear-off databases are loaded (or built and cached) and evaluation uses
    them wherever they apply; otherwise empty placeholders of the right types switch them off.
    With ``tables`` the nets' first-layer tables are built for fast inference; training, which
    changes the weights in place, uses ``tables=False`` (dense inputs) or calls
    :func:`with_tables` again after changing them.
    """
    if bearoff:
        from bgtui.analysis.bearoff_cache import get_extended_one_sided, get_two_sided

        two = np.ascontiguousarray(get_two_sided().win, dtype=np.float32)
        one = get_extended_one_sided()  # home boards, a straggler, or at most 6 checkers
    else:
        two = np.zeros((0, 0), dtype=np.float32)
        one = np.zeros((0, 2, 1), dtype=np.float32)
    if side is None and isinstance(nets, Evaluator):
        side = nets.side
    contact, race, crashed, *rest = as_nets(nets)
    return with_tables((contact, race, two, one, None, crashed, side, *rest), tables)


def with_tables(ev, tables: bool = True):
    """``ev`` with its first-layer tables rebuilt from its nets' current weights (or, without
    ``tables``, with empty ones: dense evaluation)."""
    two, one = ev[2], ev[3]
    side = ev[6] if len(ev) > 6 else None
    nets = as_nets(ev)
    if tables:
        # a contact net whose first layer is one before it (a net tied to another, or sharing
        # only its first layer) shares its tables
        tabs = []
        for k, net in enumerate(nets):
            same = [j for j in range(k) if j != RACE and k != RACE and nets[j][0] is net[0]]
            tabs.append(tabs[same[0]] if same else make_tables(net, race=k == RACE))
        tabs = tuple(tabs)
    else:
        empty = np.zeros((0, 1), dtype=np.float32)
        tabs = (empty,) * len(NET_NAMES)
    contact, race, crashed, *rest = nets
    return make_evaluator(contact, race, two, one, tabs, crashed, side, *rest)


DEFAULT_FILTER = "filter-0.npz"
FILTER_FORMAT = 1
_FILTER_PARTS = ("w1", "b1", "w2")
_filter_cache: dict = {}


def save_filter_net(path, net, meta: dict) -> None:
    """Write a filter net (w1, b1, w2: see :mod:`bgtui.engine.filter_net`) and ``meta``
    atomically to ``path``."""
    data = {p: np.ascontiguousarray(a, dtype=np.float32) for p, a in zip(_FILTER_PARTS, net)}
    from bgtui.engine import FILTER_ROWS

    meta = dict(
        meta,
        format=FILTER_FORMAT,
        kind="filter",
        rows=FILTER_ROWS,
        hidden=int(data["b1"].shape[0]),
        sha256=arrays_sha256(data),
    )
    _write_npz(path, meta, data)


def load_filter_net(name=DEFAULT_FILTER):
    """The filter net ``(w1, b1, w2)`` of rollouts with ``vr_filter`` (cached), its first layer
    extended with difference rows (``filter_net.extend_filter_table``); raise
    :class:`WeightsError` saying what does not fit."""
    from bgtui.engine import FILTER_ROWS, extend_filter_table

    path = find_weights(str(name))
    key = (str(path), path.stat().st_mtime_ns)
    if key in _filter_cache:
        return _filter_cache[key]
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except Exception as exc:
        raise WeightsError(f"{path}: not a readable filter-net file ({exc})") from None
    if "meta" not in data:
        raise WeightsError(f"{path}: no metadata; not a bgtui filter-net file")
    meta = json.loads(str(data.pop("meta")))
    if meta.get("kind") != "filter" or meta.get("format") != FILTER_FORMAT:
        raise WeightsError(f"{path}: not a filter net of format {FILTER_FORMAT}")
    if arrays_sha256(data) != meta.get("sha256"):
        raise WeightsError(f"{path}: checksum mismatch; the file is damaged")
    try:
        w1, b1, w2 = (aligned(data[p]) for p in _FILTER_PARTS)
    except KeyError as exc:
        raise WeightsError(f"{path}: missing array {exc}") from None
    h = b1.shape[0]
    if w1.shape != (FILTER_ROWS, h) or w2.shape != (h + 1,):
        raise WeightsError(
            f"{path}: made for {w1.shape[0]} input rows and {h} hidden units with "
            f"inconsistent shapes; this bgtui uses {FILTER_ROWS} rows"
        )
    _filter_cache[key] = net = (aligned(extend_filter_table(w1)), b1, w2)
    return net


def net_digest(arrays) -> str:
    """A digest of a net's arrays (their dtypes, shapes and contents)."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape};".encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _net_id(net) -> str:
    """The digest of a net's four arrays, tagged with the name of its hidden function unless
    that is the sigmoid (a sigmoid net's digest is that of its arrays alone)."""
    net = as_net(net)
    tag = "" if net.act == SIGMOID else f":{ACTIVATIONS[net.act]}"
    return net_digest(net[:4]) + tag


def evaluator_digest(ev) -> str:
    """A digest of what an evaluator computes with: its nets' weights (a net that is the net
    it is tied to counted once: an early or a trailing net that is the contact net, a holding
    net that is the crashed net, an anchor net that is the net of the class it splits, an
    early trailing net that is the early net, an early bar net that is the early net, an
    early trailing bar net that is the early trailing net, a bar net below ``EARLY_PIPS``
    that is the net of the class it splits; a net of its own counted with its name but the
    early net) and their hidden functions, its race side net's and the shapes of its bear-off
    databases (their contents are built by the code)."""
    h = hashlib.sha256()
    nets = nets_of(ev)
    for net in nets[:3]:
        h.update(_net_id(net).encode())
    for k, to in TIES:
        if nets[k] is not nets[to]:
            if k != EARLY:  # the early net's digest is untagged
                h.update(NET_NAMES[k].encode())
            h.update(_net_id(nets[k]).encode())
    if ev.side.w2.shape[0] > 0:
        h.update(
            net_digest((ev.side.w2, ev.side.w1, ev.side.b1, ev.side.b2, ev.side.skip)).encode()
        )
    for db in (ev.two_sided, ev.one_sided):
        h.update(f"db{np.asarray(db).dtype.str}{np.asarray(db).shape};".encode())
    return h.hexdigest()[:16]
