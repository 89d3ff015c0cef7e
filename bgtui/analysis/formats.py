"""GNU Backgammon Position ID and Match ID, and eXtreme Gammon's XGID: decode and encode.

Position ID (GNU Backgammon manual, "A technical description of the Position ID"): an 80-bit
key, little-endian in 10 bytes, base64 without padding (14 characters). GNU Backgammon writes
the checkers of the player NOT on roll first (from his ace point up to his bar), then those of
the player on roll — for each point as many 1 bits as checkers and a 0 bit. (The manual's prose
names the player on roll first; the program, and every ID it prints, do it the other way.)

Match ID ("A technical description of the Match ID"): a 66-bit key in 9 bytes, base64 (12
characters): cube log2 (4 bits), cube owner (2: 0, 1, or 3 = centred), player on roll (1),
Crawford (1), game state (3), turn (1), double offered (1), resignation (2), die 1 (3),
die 2 (3), match length (15), score of player 0 (15), score of player 1 (15); multi-bit fields
least significant bit first.

XGID: ``XGID=<26 board chars>:<cube log2>:<cube position>:<turn>:<dice>:<score X>:<score O>:
<crawford or jacoby+2*beaver>:<match length>:<max cube log2>``. The board is written from the
bottom player X's side: character 0 is O's bar, 1..24 X's points, 25 X's bar; ``A``.. are X's
checkers (1..), ``a``.. O's, ``-`` empty. Turn 1: X on roll, -1: O on roll.
"""

from __future__ import annotations

import base64
import re

import numpy as np

from bgtui.analysis.state import GameState
from bgtui.engine.position import InvalidPosition, validate


class PositionFormatError(ValueError):
    """A position string that cannot be read; the message says what is wrong."""


_B64 = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


def _b64decode(text: str, nbytes: int, what: str) -> bytes:
    bad = [c for c in text if c not in _B64]
    if bad:
        raise PositionFormatError(f"{what} contains {bad[0]!r}, which is not a base64 character")
    pad = "=" * (-len(text) % 4)
    return base64.b64decode(text + pad)[:nbytes]


def _bits_le(data: bytes):
    for byte in data:
        for k in range(8):
            yield (byte >> k) & 1


def _pack_bits(bits: list[int], nbytes: int) -> bytes:
    out = bytearray(nbytes)
    for i, b in enumerate(bits):
        if b:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


# -- Position ID -------------------------------------------------------------------------------
def decode_position_id(pid: str) -> np.ndarray:
    """The ``int8[26]`` position (player on roll) of a 14-character Position ID."""
    pid = pid.strip()
    if len(pid) != 14:
        raise PositionFormatError(f"a Position ID has 14 characters, {pid!r} has {len(pid)}")
    key = _b64decode(pid, 10, "the Position ID")
    bits = list(_bits_le(key))
    sides = [[0] * 25, [0] * 25]  # [opponent, player]; index 0..23 = points 1..24, 24 = bar
    i = 0
    for side in range(2):
        for point in range(25):
            while i < 80 and bits[i] == 1:
                sides[side][point] += 1
                i += 1
            if i >= 80:
                raise PositionFormatError("the Position ID runs out of bits: it is not a valid ID")
            i += 1
    opp, me = sides
    for name, s in (("player on roll", me), ("opponent", opp)):
        if sum(s) > 15:
            raise PositionFormatError(f"the Position ID gives the {name} {sum(s)} checkers (at most 15)")
    pos = np.zeros(26, dtype=np.int64)
    for k in range(24):
        pos[k + 1] += me[k]
    pos[25] = me[24]
    for k in range(24):
        if opp[k]:
            idx = 24 - k  # opponent's point k+1 is our point 25-(k+1)
            if pos[idx] > 0:
                raise PositionFormatError(
                    f"the Position ID puts both sides on one point (player's point {idx})")
            pos[idx] -= opp[k]
    pos[0] = -opp[24]
    try:
        return validate(pos, allow_finished=True)
    except InvalidPosition as exc:
        raise PositionFormatError(f"the Position ID describes an impossible position: {exc}") from None


def encode_position_id(pos) -> str:
    p = np.asarray(pos, dtype=np.int64)
    bits: list[int] = []
    for k in range(24):  # opponent: his points 1..24 are our indices 24..1
        bits += [1] * int(max(0, -p[24 - k])) + [0]
    bits += [1] * int(max(0, -p[0])) + [0]
    for k in range(24):
        bits += [1] * int(max(0, p[k + 1])) + [0]
    bits += [1] * int(max(0, p[25])) + [0]
    key = _pack_bits(bits, 10)
    return base64.b64encode(key).decode("ascii")[:14]


# -- Match ID ----------------------------------------------------------------------------------
def _field(bits, start, n):
    return sum(bits[start + k] << k for k in range(n))


def decode_match_id(mid: str) -> dict:
    mid = mid.strip()
    if len(mid) != 12:
        raise PositionFormatError(f"a Match ID has 12 characters, {mid!r} has {len(mid)}")
    bits = list(_bits_le(_b64decode(mid, 9, "the Match ID")))
    f = {
        "cube_log": _field(bits, 0, 4),
        "cube_owner": _field(bits, 4, 2),
        "on_roll": _field(bits, 6, 1),
        "crawford": _field(bits, 7, 1),
        "game_state": _field(bits, 8, 3),
        "turn": _field(bits, 11, 1),
        "double_offered": _field(bits, 12, 1),
        "resigned": _field(bits, 13, 2),
        "die1": _field(bits, 15, 3),
        "die2": _field(bits, 18, 3),
        "match_length": _field(bits, 21, 15),
        "score0": _field(bits, 36, 15),
        "score1": _field(bits, 51, 15),
        "tail": _field(bits, 66, 6),
    }
    if f["cube_owner"] == 2:
        raise PositionFormatError("the Match ID's cube owner field is 2 (only 0, 1 and 3 exist)")
    if f["die1"] > 6 or f["die2"] > 6 or (f["die1"] == 0) != (f["die2"] == 0):
        raise PositionFormatError(f"the Match ID's dice {f['die1']}{f['die2']} are not a roll")
    return f


def encode_match_id(f: dict) -> str:
    bits = [0] * 72
    for start, n, name in ((0, 4, "cube_log"), (4, 2, "cube_owner"), (6, 1, "on_roll"),
                           (7, 1, "crawford"), (8, 3, "game_state"), (11, 1, "turn"),
                           (12, 1, "double_offered"), (13, 2, "resigned"), (15, 3, "die1"),
                           (18, 3, "die2"), (21, 15, "match_length"), (36, 15, "score0"),
                           (51, 15, "score1"), (66, 6, "tail")):
        v = int(f[name])
        for k in range(n):
            bits[start + k] = (v >> k) & 1
    return base64.b64encode(_pack_bits(bits, 9)).decode("ascii")


def _state_from_match(pos, f: dict) -> GameState:
    on_roll = f["on_roll"]
    owner = f["cube_owner"]
    cube_owner = "centred" if owner == 3 else ("player" if owner == on_roll else "opponent")
    dice = (f["die1"], f["die2"]) if f["die1"] else None
    scores = (f["score0"], f["score1"])
    try:
        return GameState.from_position(
            pos, cube_value=2 ** f["cube_log"], cube_owner=cube_owner, dice=dice,
            match_length=f["match_length"], score=(scores[on_roll], scores[1 - on_roll]),
            crawford=bool(f["crawford"]), on_roll=on_roll, game_state=f["game_state"],
            double_offered=bool(f["double_offered"]), resigned=f["resigned"],
            match_id_tail=f["tail"],
        )
    except ValueError as exc:
        raise PositionFormatError(f"the Match ID is inconsistent: {exc}") from None


def format_position_id(state) -> str:
    pos = state.position if isinstance(state, GameState) else state
    return encode_position_id(pos)


def format_match_id(state: GameState) -> str:
    on_roll = state.on_roll
    owner = {"centred": 3, "player": on_roll, "opponent": 1 - on_roll}[state.cube_owner]
    scores = [0, 0]
    scores[on_roll], scores[1 - on_roll] = state.score
    d = state.dice_raw if state.dice is not None else (0, 0)
    turn = on_roll if not state.double_offered else 1 - on_roll
    return encode_match_id({
        "cube_log": state.cube_value.bit_length() - 1, "cube_owner": owner, "on_roll": on_roll,
        "crawford": int(state.crawford), "game_state": state.game_state, "turn": turn,
        "double_offered": int(state.double_offered), "resigned": state.resigned,
        "die1": d[0], "die2": d[1], "match_length": state.match_length,
        "score0": scores[0], "score1": scores[1], "tail": state.match_id_tail,
    })


# -- XGID --------------------------------------------------------------------------------------
_XGID_RE = re.compile(r"^(?:XGID=)?([-a-oA-O]{26}):(.*)$")


def decode_xgid(text: str) -> GameState:
    t = text.strip()
    if t.upper().startswith("XGID="):
        t = "XGID=" + t[5:]
    m = _XGID_RE.match(t)
    if not m:
        board = t[5:] if t.startswith("XGID=") else t
        head = board.split(":")[0]
        if len(head) != 26:
            raise PositionFormatError(f"an XGID board has 26 characters, {head!r} has {len(head)}")
        bad = next(c for c in head if not re.match(r"[-a-oA-O]", c))
        raise PositionFormatError(f"XGID board character {bad!r} is not '-', 'A'-'O' or 'a'-'o'")
    board, rest = m.groups()
    parts = rest.split(":")
    if len(parts) < 8:
        raise PositionFormatError(
            f"an XGID has 9 or 10 fields after the board, this one has {len(parts)}")
    try:
        cube_log, cube_pos, turn = int(parts[0]), int(parts[1]), int(parts[2])
        dice_s = parts[3]
        score_x, score_o, flags, length = int(parts[4]), int(parts[5]), int(parts[6]), int(parts[7])
        max_cube = int(parts[8]) if len(parts) > 8 and parts[8] != "" else 10
    except ValueError:
        raise PositionFormatError(f"XGID fields must be numbers: {rest!r}") from None
    if turn not in (1, -1):
        raise PositionFormatError(f"XGID turn must be 1 or -1, got {turn}")
    if cube_pos not in (-1, 0, 1):
        raise PositionFormatError(f"XGID cube position must be -1, 0 or 1, got {cube_pos}")
    if not 0 <= cube_log <= 15:
        raise PositionFormatError(f"XGID cube exponent must be 0..15, got {cube_log}")
    x = np.zeros(26, dtype=np.int64)  # X's view: X positive
    for i, c in enumerate(board):
        if c == "-":
            continue
        if c.isupper():
            x[i] = ord(c) - ord("A") + 1
        else:
            x[i] = -(ord(c) - ord("a") + 1)
    if x[0] > 0:
        raise PositionFormatError("XGID character 0 is O's bar; it holds X's checkers")
    if x[25] < 0:
        raise PositionFormatError("XGID character 25 is X's bar; it holds O's checkers")
    try:
        validate(x, allow_finished=True)
    except InvalidPosition as exc:
        raise PositionFormatError(f"the XGID describes an impossible position: {exc}") from None
    pos = x if turn == 1 else -x[::-1]
    dice = None
    double_offered = False
    if dice_s in ("D", "B", "R"):
        double_offered = True
    elif dice_s != "00":
        if not re.fullmatch(r"[1-6][1-6]", dice_s):
            raise PositionFormatError(f"XGID dice {dice_s!r} are not '00', 'D' or two digits 1-6")
        dice = (int(dice_s[0]), int(dice_s[1]))
    on_roll = 1 if turn == 1 else 0
    cube_owner = "centred" if cube_pos == 0 else ("player" if cube_pos == turn else "opponent")
    money = length == 0
    kw = dict(jacoby=bool(flags & 1), beavers=bool(flags & 2)) if money else dict(crawford=bool(flags))
    score = (score_x, score_o) if turn == 1 else (score_o, score_x)
    try:
        return GameState.from_position(
            pos, cube_value=2 ** cube_log, cube_owner=cube_owner, dice=dice, match_length=length,
            score=score, on_roll=on_roll, double_offered=double_offered, max_cube_log=max_cube,
            **kw)
    except ValueError as exc:
        raise PositionFormatError(f"the XGID is inconsistent: {exc}") from None


def format_xgid(state: GameState) -> str:
    turn = 1 if state.on_roll == 1 else -1
    pos = state.position.astype(np.int64)
    x = pos if turn == 1 else -pos[::-1]
    chars = []
    for v in x:
        chars.append("-" if v == 0 else (chr(ord("A") + v - 1) if v > 0 else chr(ord("a") - v - 1)))
    cube_pos = 0 if state.cube_owner == "centred" else (turn if state.cube_owner == "player" else -turn)
    if state.double_offered:
        dice = "D"
    elif state.dice is not None:
        dice = "%d%d" % state.dice_raw
    else:
        dice = "00"
    sx, so = state.score if turn == 1 else state.score[::-1]
    flags = (int(state.jacoby) + 2 * int(state.beavers)) if state.is_money else int(state.crawford)
    return (f"XGID={''.join(chars)}:{state.cube_value.bit_length() - 1}:{cube_pos}:{turn}:{dice}:"
            f"{sx}:{so}:{flags}:{state.match_length}:{state.max_cube_log}")


# -- any of them -------------------------------------------------------------------------------
def parse_position(text: str) -> GameState:
    """A GameState from a Position ID, ``POSID:MATCHID`` or an XGID (``XGID=`` optional)."""
    t = (text or "").strip()
    if not t:
        raise PositionFormatError("empty position: give a Position ID, POSID:MATCHID or an XGID")
    if t.upper().startswith("XGID=") or (len(t) > 26 and t[26:27] == ":"):
        return decode_xgid(t)
    if ":" in t:
        pid, _, mid = t.partition(":")
        pos = decode_position_id(pid)
        return _state_from_match(pos, decode_match_id(mid))
    if len(t) != 14:
        raise PositionFormatError(
            f"{t!r} is not a position: a Position ID has 14 characters ({len(t)} given), "
            "a Match ID follows it after ':', an XGID starts with 'XGID='")
    return GameState.from_position(decode_position_id(t))
