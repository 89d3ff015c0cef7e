"""Average the nets of weights files that share a starting point (a "weight soup").

Fine-tunes of the same weights stay in the same basin, where the mean of their parameters is
a net of the same size and speed that often generalises better than each of them. Every
array of every net is the mean over the files (weighted by ``--weights``); the metadata is the
first file's with the soup's recipe added.

    python3 research/soup.py OUT.npz A.npz B.npz [C.npz ...] [--weights 1,1,2]
"""

import argparse

import numpy as np

from bgtui.analysis.weights import as_nets, load_weights, save_weights, tied_nets


def soup(paths, weights=None):
    """The weighted mean of the nets of the weights files ``paths``: (nets, first meta). A
    net that is another net in every file (an early or trailing net the contact net, a
    holding net the crashed net) is that net in the mean too."""
    loaded = [load_weights(p) for p in paths]
    nets = [as_nets(ev) for ev, _ in loaded]
    for p, ns in zip(paths, nets):
        for a, b in zip(ns, nets[0]):
            if [x.shape for x in a] != [x.shape for x in b]:
                raise SystemExit(f"{p}: its nets' shapes are not those of {paths[0]}")
    w = np.ones(len(paths)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w / w.sum()
    out = [
        tuple(
            sum(wi * ns[k][j].astype(np.float64) for wi, ns in zip(w, nets)).astype(np.float32)
            for j in range(len(nets[0][k]))
        )
        for k in range(len(nets[0]))
    ]
    for k, to in tied_nets([ev for ev, _ in loaded]):
        out[k] = out[to]
    return tuple(out), loaded[0][1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--weights", help="comma-separated weights of the files (default equal)")
    args = ap.parse_args()
    ws = [float(x) for x in args.weights.split(",")] if args.weights else None
    if ws is not None and len(ws) != len(args.paths):
        raise SystemExit(f"--weights has {len(ws)} numbers for {len(args.paths)} files")
    nets, meta = soup(args.paths, ws)
    meta = {k: v for k, v in meta.items() if k not in ("path", "sha256")}
    meta["soup"] = {"files": args.paths, "weights": ws}
    save_weights(args.out, nets, meta)
    print(f"{args.out}: the mean of {len(args.paths)} files")


if __name__ == "__main__":
    main()
