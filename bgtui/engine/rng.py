"""Random numbers as explicit state: xorshift64* over a ``uint64[1]`` array."""

import numpy as np

from bgtui.engine._jit import kernel


def make_rng(seed: int) -> np.ndarray:
    """A fresh ``uint64[1]`` state from any integer seed (splitmix64 of the seed)."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    z ^= z >> 31
    return np.array([z or 1], dtype=np.uint64)


@kernel
def next_u64(state):
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@kernel
def roll_index(state):
    """A uniform integer 0..35 (die1 = r // 6 + 1, die2 = r % 6 + 1)."""
    return np.int64((next_u64(state) >> np.uint64(11)) % np.uint64(36))


@kernel
def uniform(state):
    return (next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
