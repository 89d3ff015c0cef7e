"""Move and dice notation as GNU Backgammon writes them: ``8/5 6/5``, ``24/18*/13``, ``13/7(2)``,
``bar/22``, ``6/off``; dice ``31``, ``66`` (higher first).

Formatting is canonical: a play's text depends only on the checkers' paths, not on the order in
which the kernel happened to find the steps, so plays reaching the same position print alike.
Parsing accepts the same forms plus ``25`` for bar and ``0`` for off, chains written as separate
moves (``8/5 5/3``) or intermediate points, and checks the result against the legal plays.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np


class NotationError(ValueError):
    """A move or dice string that cannot be read or is not legal; the message says why."""


# -- dice --------------------------------------------------------------------------------------
def _quote(text, limit: int = 40) -> str:
    text = str(text)
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def parse_dice(text: str) -> tuple[int, int]:
    """(high, low) from two ASCII digits 1-6 (``31``, ``13``, ``66``); NotationError otherwise."""
    t = str(text).strip()
    if not re.fullmatch(r"[0-9][0-9]", t):
        raise NotationError(f"dice are two digits from 1 to 6, like 31 or 66; got {_quote(text)}")
    a, b = int(t[0]), int(t[1])
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise NotationError(f"each die shows 1 to 6; got {_quote(text)}")
    return (max(a, b), min(a, b))


def format_dice(dice) -> str:
    a, b = dice
    return f"{max(a, b)}{min(a, b)}"


# -- formatting --------------------------------------------------------------------------------
def _steps_with_hits(parent, steps):
    """[(from, to, hit)] for the step record, replayed on ``parent``."""
    pos = np.array(parent, dtype=np.int64)
    out = []
    for k in range(0, len(steps), 2):
        f, t = int(steps[k]), int(steps[k + 1])
        if f < 0:
            break
        hit = False
        pos[f] -= 1
        if t >= 1:
            if pos[t] == -1:
                hit = True
                pos[t] = 0
                pos[0] -= 1
            pos[t] += 1
        out.append((f, t, hit))
    return out


def _merge_paths(steps):
    """Chain single steps into checker paths: [(from, to, tuple of hit points)].

    Deterministic: steps are taken from the highest starting point down, and a path is extended
    by a step starting where it ends whenever one exists.
    """
    pending = sorted(steps, key=lambda s: (-s[0], -s[1], not s[2]))
    paths = []
    while pending:
        f, t, hit = pending.pop(0)
        hits = [t] if hit else []
        route = [f, t]
        while True:
            nxt = next(
                (i for i, s in enumerate(pending) if s[0] == route[-1] and route[-1] > 0), None
            )
            if nxt is None:
                break
            f2, t2, h2 = pending.pop(nxt)
            route.append(t2)
            if h2:
                hits.append(t2)
        paths.append((route[0], route[-1], tuple(route[1:-1]), tuple(hits)))
    return paths


def _pt(p: int) -> str:
    return "bar" if p == 25 else ("off" if p == 0 else str(p))


def _path_text(f, t, mids, hits) -> str:
    parts = [_pt(f)]
    for m in mids:
        if m in hits:
            parts.append(f"{m}*")
    parts.append(_pt(t) + ("*" if t in hits else ""))
    return "/".join(parts)


def format_play(parent, steps) -> str:
    """GNU Backgammon notation of the play ``steps`` (int8[8] step record) from ``parent``."""
    st = _steps_with_hits(parent, steps)
    if not st:
        return ""
    texts = [_path_text(*p) for p in _merge_paths(st)]
    counts = Counter(texts)
    order = []
    for p in sorted(_merge_paths(st), key=lambda p: (-p[0], -p[1])):
        s = _path_text(*p)
        if s not in order:
            order.append(s)
    return " ".join(s if counts[s] == 1 else f"{s}({counts[s]})" for s in order)


# -- parsing -----------------------------------------------------------------------------------
_TOKEN = re.compile(
    r"^((?:bar|[0-9]{1,2})\*?(?:/(?:off|bar|[0-9]{1,2})\*?)+)(?:\(([1-4])\))?$",
    re.IGNORECASE | re.ASCII,
)


def _point(s: str, token: str) -> int:
    s = s.lower().rstrip("*")
    if s == "bar":
        return 25
    if s == "off":
        return 0
    v = int(s)
    if not 0 <= v <= 25:
        raise NotationError(f"point {v} in {token!r} is outside 0-25")
    return v


def _parse_paths(text: str):
    """[(from, to, hit points)] from a move text; chains of separate moves are merged."""
    t = text.strip().replace(",", " ")
    if not t:
        return []
    steps = []
    for token in t.split():
        m = _TOKEN.match(token)
        if not m:
            raise NotationError(
                f"cannot read {_quote(token)}: write moves like 8/5, 24/18*/13, bar/22, 6/off, 13/7(2)"
            )
        body, count = m.group(1), int(m.group(2) or 1)
        pts = body.split("/")
        vals = [_point(p, token) for p in pts]
        hits = tuple(v for p, v in zip(pts, vals) if p.endswith("*"))
        for a, b in zip(vals, vals[1:]):
            if b >= a:
                raise NotationError(f"{token!r} moves backwards ({_pt(a)} to {_pt(b)})")
        for _ in range(count):
            for a, b in zip(vals, vals[1:]):
                steps.append((a, b, b in hits))
    return [(f, t, h) for f, t, _, h in _merge_paths(steps)]


def _key(paths):
    return Counter((f, t) for f, t, _ in paths)


def parse_play(parent, text: str, dice) -> np.ndarray:
    """The position (mover's view) after the play ``text`` with ``dice`` from ``parent``."""
    from bgtui.engine import generate_plays

    d1, d2 = parse_dice(dice) if isinstance(dice, str) else dice
    children, moves = generate_plays(np.asarray(parent, dtype=np.int8), int(d1), int(d2))
    wanted = _parse_paths(text)
    if not wanted:
        if len(children) == 1 and moves[0][0] < 0:
            return children[0]
        raise NotationError(
            f"an empty move is legal only when no checker can move; with "
            f"{format_dice((d1, d2))} there are {len(children)} legal plays"
        )
    want_key = _key(wanted)
    want_hits = Counter(h for _, _, hs in wanted for h in hs)
    matches = []
    for c, m in zip(children, moves):
        paths = [(f, t, h) for f, t, _, h in _merge_paths(_steps_with_hits(parent, m))]
        if _key(paths) == want_key:
            matches.append((c, m, Counter(h for _, _, hs in paths for h in hs)))
    if not matches:
        legal = ", ".join(sorted(format_play(parent, m) for m in moves[:12]))
        more = "" if len(moves) <= 12 else f" ... ({len(moves)} in all)"
        raise NotationError(
            f"{_quote(text)} is not a legal play of {format_dice((d1, d2))}; "
            f"legal plays include: {legal}{more}"
        )
    if len(matches) > 1:
        exact = [x for x in matches if x[2] == want_hits]
        if len(exact) == 1:
            return exact[0][0]
        opts = " or ".join(format_play(parent, m) for _, m, _ in matches)
        raise NotationError(f"{_quote(text)} is ambiguous: {opts}")
    return matches[0][0]
