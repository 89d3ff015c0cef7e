"""A slow, obviously correct legal-play generator, written from the rules, to check the kernel.

Positions are int8[26] lists from the side on roll (see bgtui.engine.constants): 1..24 points
(positive = ours), 25 our bar, 0 the opponent's bar (negative). We move toward 0 (off).
"""

from __future__ import annotations


def _all_home(b) -> bool:
    return all(b[i] <= 0 for i in range(7, 26))


def single_moves(b, d):
    """Every legal move of one checker by one die: list of (from, to)."""
    out = []
    if b[25] > 0:
        dest = 25 - d
        if b[dest] >= -1:
            out.append((25, dest))
        return out
    for p in range(24, 0, -1):
        if b[p] <= 0:
            continue
        dest = p - d
        if dest >= 1:
            if b[dest] >= -1:
                out.append((p, dest))
        elif _all_home(b):
            if dest == 0:
                out.append((p, 0))
            elif all(b[q] <= 0 for q in range(p + 1, 7)):
                out.append((p, 0))  # the highest checker bears off with a larger die
    return out


def apply(b, move):
    f, t = move
    b = list(b)
    b[f] -= 1
    if t >= 1:
        if b[t] == -1:
            b[t] = 0
            b[0] -= 1
        b[t] += 1
    return b


def sequences(b, dice):
    """All maximal-or-not sequences: yields (position, steps, dice used)."""
    results = []
    seen = set()

    def rec(pos, remaining, steps):
        state = (tuple(pos), tuple(sorted(remaining)))
        if state in seen:  # same board, same dice left: the same continuations
            return
        seen.add(state)
        results.append((pos, steps))
        tried = set()
        for i, d in enumerate(remaining):
            if d in tried:
                continue
            tried.add(d)
            rest = remaining[:i] + remaining[i + 1 :]
            for m in single_moves(pos, d):
                rec(apply(pos, m), rest, steps + [(m, d)])

    rec(list(b), list(dice), [])
    return results


def legal_plays(b, d1: int, d2: int):
    """dict: resulting position (bytes of int8) -> one step list [((from, to), die), ...]."""
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    seqs = sequences(b, dice)
    most = max(len(s) for _, s in seqs)
    keep = [(p, s) for p, s in seqs if len(s) == most]
    if most == 1 and d1 != d2:
        # only one die can be played: the larger one if it can be
        big = max(d1, d2)
        if any(s[0][1] == big for _, s in keep):
            keep = [(p, s) for p, s in keep if s[0][1] == big]
    out = {}
    for p, s in keep:
        key = bytes((x & 0xFF) for x in p)
        out.setdefault(key, s)
    return out
