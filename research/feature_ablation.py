"""What each hand-crafted input feature adds: supervised fits with one feature removed.

    python research/feature_ablation.py [--positions 40000] [--epochs 8] [--hidden 64]

Samples contact positions from 0-ply self-play with the shipped nets, labels them with the
nets' own 1-ply evaluation, then for each feature trains a fresh contact net (same seed, same
data order) with that feature zeroed for both sides and prints the validation mean squared
error of the five outputs, relative to the net that sees every feature. A feature whose removal
raises the error is one the net uses.
"""

import time

import numpy as np

from bgtui.analysis.options import script_parser
from bgtui.analysis.weights import load_weights, with_databases
from bgtui.engine import (
    FEATURE_NAMES,
    NUM_INPUTS,
    PER_SIDE,
    RAW_PER_SIDE,
    START,
    backward,
    fill_inputs,
    forward,
    hidden_size,
    init_net,
    is_race,
    kernel,
    make_play_workspace,
    make_rng,
    sample_positions,
)
from bgtui.training.train import plied_targets


@kernel
def _fill_all(positions, out):
    sw = np.zeros(26, dtype=np.int8)
    for i in range(positions.shape[0]):
        fill_inputs(positions[i], sw, out[i])


@kernel
def _train(X, Y, order, net, alpha, epochs):
    nh = net.b1.shape[0]
    h = np.zeros(nh, dtype=np.float32)
    dh = np.zeros(nh, dtype=np.float32)
    o = np.zeros(5, dtype=np.float32)
    for ep in range(epochs):
        a = alpha / (1.0 + ep)
        for j in range(order.shape[0]):
            k = order[j]
            forward(X[k], net.w1, net.b1, net.w2, net.b2, h, o, net.act)
            backward(X[k], net.w1, net.b1, net.w2, net.b2, h, o, Y[k], a, dh, net.act)


@kernel
def _mse(X, Y, net):
    nh = net.b1.shape[0]
    h = np.zeros(nh, dtype=np.float32)
    o = np.zeros(5, dtype=np.float32)
    s = 0.0
    for k in range(X.shape[0]):
        forward(X[k], net.w1, net.b1, net.w2, net.b2, h, o, net.act)
        for q in range(5):
            d = Y[k, q] - o[q]
            s += d * d
    return s / X.shape[0]


def main():
    a = script_parser(positions=40000, epochs=8, hidden=64, weights="bgtui-0.npz").parse_args()
    ev = with_databases(load_weights(a.weights)[0], bearoff=True)
    rng = make_rng(4)
    dest = np.zeros((a.positions * 2, 26), dtype=np.int8)
    m = 0
    ws = make_play_workspace(hidden_size(ev))
    while m < len(dest):
        m += sample_positions(ev, 50, rng, START, 0.1, ws, dest[m:])
    contact = np.array([not is_race(p) for p in dest])
    pos = dest[contact][: a.positions]
    t = time.time()
    Y = plied_targets(ev, pos, 1, 2)
    print(f"{len(pos)} contact positions labelled at 1-ply in {time.time() - t:.0f} s", flush=True)
    X = np.zeros((len(pos), NUM_INPUTS), dtype=np.float32)
    _fill_all(pos, X)
    n_train = int(0.8 * len(pos))
    order = np.random.default_rng(0).permutation(n_train).astype(np.int64)

    def fit(mask_cols):
        Xm = X.copy()
        Xm[:, mask_cols] = 0.0
        net = init_net(a.hidden, 1)
        _train(Xm[:n_train], Y[:n_train], order, net, np.float32(0.05), a.epochs)
        return _mse(Xm[n_train:], Y[n_train:], net)

    base = fit([])
    print(f"{'removed':16s} {'val MSE':>10s} {'vs all':>8s}")
    print(f"{'(none)':16s} {base:10.6f} {1.0:8.3f}", flush=True)
    feats = [RAW_PER_SIDE + k for k in range(len(FEATURE_NAMES))]
    allf = feats + [PER_SIDE + f for f in feats]
    mse = fit(allf)
    print(f"{'(all features)':16s} {mse:10.6f} {mse / base:8.3f}", flush=True)
    for k, name in enumerate(FEATURE_NAMES):
        cols = [RAW_PER_SIDE + k, PER_SIDE + RAW_PER_SIDE + k]
        mse = fit(cols)
        print(f"{name:16s} {mse:10.6f} {mse / base:8.3f}", flush=True)


if __name__ == "__main__":
    main()
