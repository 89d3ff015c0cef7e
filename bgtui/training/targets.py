"""Batch targets for supervised training: n-ply evaluations of many positions."""

from bgtui.engine import evaluate_plied, kernel


@kernel
def _plied_batch(positions, ply, ev, lws, out):
    """``out[i]`` = ``ply``-ply probabilities of ``positions[i]`` (player on roll)."""
    for i in range(positions.shape[0]):
        evaluate_plied(positions[i], ply, ev, lws, out[i])
