"""The plays a pruned lookahead keeps, by brute force: the shipped filter net scores every play
from all its rows (``filter_net.filter_scores``, not the engine's incremental scores)."""

from __future__ import annotations

import numpy as np

from bgtui.analysis.weights import load_filter_net
from bgtui.engine.filter_net import filter_scores, make_filter_scratch

#: filter scores closer than this may be ranked the other way by the engine's sums
NEAR_TIE = 1e-4


def filter_top_k(plays, k: int):
    """(the indices of the ``k`` plays of ``plays`` (int8[n, 26]) whose filter scores are
    highest, best first, ties to the earlier play; whether the k-th and the next score are a
    near tie, which the engine may break the other way). With no more than ``k`` plays: all
    of them in order of score, no tie."""
    w1, b1, w2 = load_filter_net()
    plays = np.ascontiguousarray(plays, dtype=np.int8)
    n = len(plays)
    scores = np.zeros(n)
    filter_scores(plays, n, w1, b1, w2, make_filter_scratch(b1.shape[0]), scores)
    order = np.argsort(-scores, kind="stable")
    tie = n > k and scores[order[k - 1]] - scores[order[k]] < NEAR_TIE
    return order[:k], bool(tie)
