"""How bgtui's sigmoid was made: fit tanh on [0, 9] by y * P(y^2) / Q(y^2) and time it.

    python research/sigmoid_fit.py

The logistic function is 0.5 + 0.5 * tanh(z / 2). The fit is linearised least squares
(y P(u) - tanh(y) Q(u) = 0, u = y^2, Q's constant term 1), reweighted by 1 / Q and by the error
so that it tends toward the minimax fit. Prints the coefficients (those in ``bgtui.engine.nn``),
the largest error in float64 and in float32 evaluation, and the time of 128 sigmoids by the
rational function against ``math.exp`` (one core).
"""

import math
import time

import numpy as np

from bgtui.engine import kernel, sigmoid_inplace

CLAMP = 9.0


def fit(n_p=5, n_q=4, iters=60):
    y = np.linspace(0, CLAMP, 20001)[1:]
    t = np.tanh(y)
    u = y * y
    w = np.ones_like(y)
    for _ in range(iters):
        a = np.hstack(
            [
                y[:, None] * u[:, None] ** np.arange(n_p),
                -(t[:, None] * u[:, None] ** np.arange(1, n_q + 1)),
            ]
        )
        sol = np.linalg.lstsq(a * w[:, None], t * w, rcond=None)[0]
        p = sol[:n_p]
        q = np.concatenate([[1.0], sol[n_p:]])
        err = y * np.polyval(p[::-1], u) / np.polyval(q[::-1], u) - t
        w = (1.0 / np.abs(np.polyval(q[::-1], u))) * (1 + 50 * np.abs(err) / np.abs(err).max())
    return p, q, float(np.abs(err).max())


@kernel(fastmath=True)
def _exp_sigmoids(h, reps):
    for _ in range(reps):
        for j in range(h.shape[0]):
            h[j] = 1.0 / (1.0 + math.exp(-h[j]))


@kernel
def _rational_sigmoids(h, reps):
    for _ in range(reps):
        sigmoid_inplace(h, h.shape[0])


def main():
    p, q, err = fit()
    print("P =", [float(x) for x in p])
    print("Q =", [float(x) for x in q])
    print(f"largest error of tanh on [0, {CLAMP}]: {err:.2e} (sigmoid: half of it)")
    z = np.linspace(-30, 30, 600001).astype(np.float32)
    h = z.copy()
    sigmoid_inplace(h, h.shape[0])
    exact = 1.0 / (1.0 + np.exp(-z.astype(np.float64)))
    print(f"bgtui's float32 sigmoid: largest error {np.abs(h - exact).max():.2e} on [-30, 30]")
    reps = 200_000
    for name, fn in (("math.exp", _exp_sigmoids), ("rational", _rational_sigmoids)):
        x = np.random.default_rng(1).normal(0, 3, 128).astype(np.float32)
        fn(x.copy(), 1)
        t0 = time.process_time()
        fn(x, reps)
        print(f"{name:9s}: {1e6 * (time.process_time() - t0) / reps:.3f} us per 128 sigmoids")


if __name__ == "__main__":
    main()
