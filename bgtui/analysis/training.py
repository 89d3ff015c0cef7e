"""Training pipeline driver: TD(0) self-play from random weights, resumable from checkpoints.

Runs the engine's training kernels in chunks, logs progress as JSON lines, and writes a
checkpoint (weights + metadata including games trained and the RNG state) atomically every
``save_every`` games. Restarting with the same checkpoint path resumes where it stopped.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from bgtui.analysis.weights import load_weights, save_weights
from bgtui.engine.evaluate import make_eval_workspace, make_play_buffers
from bgtui.engine.movegen import make_workspace
from bgtui.engine.nn import init_net
from bgtui.engine.rng import make_rng
from bgtui.engine.train import _START, _td_selfplay


def td_alpha(games: int, base: float) -> float:
    """Learning-rate schedule: ``base`` for 200k games, then decaying to base/10."""
    if games < 200_000:
        return base
    return max(base / 10.0, base * 200_000 / games)


def td_train(checkpoint, games: int, hidden: int = 128, race_hidden: int = 64,
             alpha: float = 0.1, seed: int = 1, chunk: int = 1000, save_every: int = 20_000,
             log=sys.stdout) -> dict:
    """Train until ``games`` self-play games in total (counting those in the checkpoint)."""
    checkpoint = Path(checkpoint)
    if checkpoint.exists():
        ev, meta = load_weights(checkpoint)
        ev = tuple(tuple(a.copy() for a in net) for net in ev)
        done = int(meta.get("games_trained", 0))
        rng = np.array([int(meta["rng_state"])], dtype=np.uint64)
    else:
        ev = (init_net(hidden, seed), init_net(race_hidden, seed + 1))
        meta = {}
        done = 0
        rng = make_rng(seed)
    mws = make_workspace()
    ews = make_eval_workspace(max(n[1].shape[0] for n in ev))
    out_pos, out_moves = make_play_buffers()
    stats = np.zeros(8)
    t0 = time.time()
    last_save = done
    while done < games:
        n = min(chunk, games - done)
        a = td_alpha(done, alpha)
        stats[:] = 0
        t = time.time()
        _td_selfplay(ev, n, rng, a, a, _START, mws, ews, out_pos, out_moves, stats)
        dt = time.time() - t
        done += n
        print(json.dumps({
            "games": done, "alpha": round(a, 5), "games_per_s": round(n / dt, 1),
            "plays_per_game": round(stats[1] / n, 2), "gammons": round(stats[3] / n, 4),
            "backgammons": round(stats[4] / n, 4), "first_player_ppg": round(stats[2] / n, 4),
            "elapsed": round(time.time() - t0, 1),
        }), file=log, flush=True)
        if done - last_save >= save_every or done >= games:
            meta.update(
                games_trained=done,
                rng_state=str(int(rng[0])),
                training={"method": "td0-selfplay", "alpha": alpha, "seed": seed,
                          "schedule": "td_alpha"},
            )
            save_weights(checkpoint, ev, meta)
            last_save = done
    return meta
