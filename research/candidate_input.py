"""Would a candidate input help the contact net? Fits it with and without the extra inputs.

    python research/candidate_input.py --data runs/t3a,runs/t4a,runs/t2c [--epochs 6]

The candidate here is GNU Backgammon-style containment: for each side, the fewest escapes
(``inputs._escapes``) from any of its points 15..24, over 36, and its square (4 inputs).
Starting from the shipped contact net (zero weights for the new inputs), it fits the contact
positions of a 2-ply training set (``bgtui train dataset``) twice with Adam, on the same rows
in the same order: once with the usual inputs and once with the candidate added. Then it prints
the held-out squared error of each, pass by pass.

On 1.1 M positions the two held-out errors agreed (0.000352 without, 0.000351 with):
containment adds nothing the net lacks.
"""

import argparse

import numpy as np

from bgtui.analysis.weights import load_weights
from bgtui.engine import CONTACT, escapes, kernel, net_copy
from bgtui.training import adam
from bgtui.training.kernels import net_classes
from bgtui.training.train import load_dataset


@kernel
def _containment(positions, idx, out):
    """out[r] = (contain, contain^2) for the player, then the opponent, of positions[idx[r]]."""
    sw = np.zeros(26, dtype=np.int8)
    for r in range(idx.shape[0]):
        p = positions[idx[r]]
        for i in range(26):
            sw[i] = -p[25 - i]
        for s in range(2):
            q = p if s == 0 else sw
            m = 36.0
            for b in range(15, 25):
                m = min(m, escapes(q, b))
            out[r, 2 * s] = m / 36.0
            out[r, 2 * s + 1] = (m / 36.0) ** 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="training set directories, comma-separated")
    ap.add_argument("--epochs", type=int, default=6)
    a = ap.parse_args()
    pos, tg = load_dataset(a.data)
    cls = net_classes(pos)
    perm = np.random.default_rng(5).permutation(len(pos))
    hold, train = perm[: len(pos) // 25], perm[len(pos) // 25 :]
    tr, ho = train[cls[train] == CONTACT], hold[cls[hold] == CONTACT]
    if len(ho) == 0:
        raise SystemExit(f"{a.data}: too few contact positions to hold some out")
    x, xh = adam.dense_inputs(pos, tr), adam.dense_inputs(pos, ho)
    cx = np.zeros((len(tr), 4), np.float32)
    ch = np.zeros((len(ho), 4), np.float32)
    _containment(pos, tr.astype(np.int64), cx)
    _containment(pos, ho.astype(np.int64), ch)
    contact = load_weights()[0].contact
    for extra in (False, True):
        net = net_copy(contact)
        X, XH = x, xh
        if extra:
            net = net._replace(w1=np.vstack([net.w1, np.zeros((4, net.w1.shape[1]), np.float32)]))
            X, XH = np.hstack([x, cx]), np.hstack([xh, ch])
        net = tuple(net)
        moments = adam.new_moments(net)
        print(f"{'with' if extra else 'without'} the candidate: held-out squared error", flush=True)
        for ep in range(a.epochs):
            lr = 0.001 * 0.01 ** (ep / max(a.epochs - 1, 1))
            order = np.random.default_rng(ep).permutation(len(tr))
            adam.adam_pass(net, moments, X, tg[tr], order, 256, lr)
            print(
                f"  pass {ep + 1}: {adam.squared_error(net, XH, tg[ho]) / len(ho):.6f}", flush=True
            )


if __name__ == "__main__":
    main()
