"""Weights with some of their nets replaced by nets of other weights files.

    python research/combine_nets.py BASE.npz OUT.npz NET=FILE[:SRCNET] [...]

OUT is BASE with its net NET (a name of ``NET_NAMES``) replaced by the net SRCNET (by default
NET) of FILE: experts fitted from one net of a file (``experts.py fit --start``) put in as the
nets of the classes they were fitted on. A net of BASE that is another net (tied) and is not
replaced stays tied; the metadata records the replacements.
"""

import sys

from bgtui.analysis.weights import as_nets, load_weights, save_weights, tied_nets
from bgtui.engine import NET_NAMES


def main():
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    base, out, *subs = sys.argv[1:]
    ev, meta = load_weights(base)
    nets = list(as_nets(ev))
    for k, to in tied_nets([ev]):
        nets[k] = nets[to]
    for sub in subs:
        name, _, src = sub.partition("=")
        path, _, src_net = src.partition(":")
        for n in (name, src_net or name):
            if n not in NET_NAMES:
                raise SystemExit(f"unknown net {n!r}: one of {', '.join(NET_NAMES)}")
        nets[NET_NAMES.index(name)] = as_nets(load_weights(path)[0])[
            NET_NAMES.index(src_net or name)
        ]
    meta = {k: v for k, v in meta.items() if k not in ("path", "sha256")}
    meta["combined"] = {"from": base, "nets": subs}
    save_weights(out, tuple(nets), meta, side=ev.side)


if __name__ == "__main__":
    main()
