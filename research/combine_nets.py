"""Weights with some of their nets replaced by nets of other weights files.

    python research/combine_nets.py BASE.npz OUT.npz NET=FILE[:SRCNET] [...]

OUT is BASE with its net NET (a name of ``NET_NAMES``: contact, race, crashed, early, holding,
trailing, mutual, mutual_trailing, anchor, mutual_anchor, trailing_anchor,
mutual_trailing_anchor, early_trailing, early_bar, early_trailing_bar, contact_bar,
trailing_bar, mutual_bar, mutual_trailing_bar, anchor_bar, mutual_anchor_bar,
trailing_anchor_bar, mutual_trailing_anchor_bar) replaced by the net SRCNET (by default NET)
of FILE: experts fitted from one net of a file (``experts.py fit --start``) put in as the nets
of the classes they were fitted on (``anchor=E.npz:contact``, ``early_trailing=E.npz:early``,
``early_bar=E.npz:early``, ``contact_bar=E.npz:contact``, say). A net of BASE that is another
net (tied) and is not replaced stays tied: it is the net it is tied to, that net's
replacement when it is replaced (an anchor net of BASE tied to its contact net is the new
contact net, an early trailing or early bar net tied to its early net the new early net, an
early trailing bar net tied to its early trailing net the new early trailing net, a bar net
below ``EARLY_PIPS`` tied to the net of the class it splits that net's replacement). The
metadata records the replacements, and (``first_layer_of``) the nets whose first layer is
another's, which the loader then shares.
"""

import sys

from bgtui.analysis.weights import (
    TIES,
    as_nets,
    load_weights,
    same_first_layer,
    save_weights,
    tied_nets,
)
from bgtui.engine import NET_NAMES, RACE


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    base, out, *subs = sys.argv[1:]
    ev, meta = load_weights(base)
    nets = list(as_nets(ev))
    replaced = set()
    for sub in subs:
        name, _, src = sub.partition("=")
        path, _, src_net = src.partition(":")
        for n in (name, src_net or name):
            if n not in NET_NAMES:
                raise SystemExit(f"unknown net {n!r}: one of {', '.join(NET_NAMES)}")
        nets[NET_NAMES.index(name)] = as_nets(load_weights(path)[0])[
            NET_NAMES.index(src_net or name)
        ]
        replaced.add(NET_NAMES.index(name))
    tied = {k for k, _ in tied_nets([ev])}
    for k, to in TIES:  # in order: a net tied to one tied in turn follows that net's end
        if k in tied and k not in replaced:
            nets[k] = nets[to]  # still the net it is tied to, or that net's replacement
    meta = {k: v for k, v in meta.items() if k not in ("path", "sha256", "first_layer_of")}
    meta["combined"] = {"from": base, "nets": subs}
    shared = _shared_first_layers(nets)
    if shared:
        meta["first_layer_of"] = shared
    save_weights(out, tuple(nets), meta, side=ev.side)


def _shared_first_layers(nets) -> dict:
    """NAME -> OTHER for each contact net (not the same net as any before it) whose first
    layer equals that of a net OTHER before it: an expert fitted with ``experts.py fit
    --output-only`` over OTHER's first layer. The loader then shares the arrays."""
    out = {}
    for k, net in enumerate(nets):
        if k == RACE or any(nets[j] is net for j in range(k)):
            continue
        for j in range(k):
            if j != RACE and nets[j] is not net and NET_NAMES[j] not in out:
                if same_first_layer(nets[j], net):
                    out[NET_NAMES[k]] = NET_NAMES[j]
                    break
    return out


if __name__ == "__main__":
    main()
