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
least significant bit first. GNU Backgammon also writes bit 66 (its Jacoby setting); it is
carried so that IDs re-encode byte for byte.

XGID: ``XGID=<26 board chars>:<cube log2>:<cube position>:<turn>:<dice>:<score X>:<score O>:
<crawford or jacoby+2*beaver>:<match length>:<max cube log2>``. The board is written from the
bottom player X's side: character 0 is O's bar, 1..24 X's points, 25 X's bar; ``A``.. are X's
checkers (1..), ``a``.. O's, ``-`` empty. Turn 1: X on roll, -1: O on roll.

Reading is strict; every reader raises :class:`PositionFormatError` (and nothing else) with a
message that names the problem and quotes at most a short prefix of the input:

- only printable ASCII (no other scripts' digits or letters, no control characters); a reader
  given bytes decodes them as ASCII;
- a Position ID has 14 base64 characters and no bit set after its last point (so exactly one
  string names each board); a Match ID has 12, and no bit set past bit 66;
- Match ID fields: cube owner 0, 1 or 3; game state 0-4; dice both 0 or both 1-6; the turn is
  the player on roll unless a double or a resignation is offered (then it is the other player);
  no dice while a double is offered; no double and resignation offered at once;
- XGID: exactly 9 fields after the board, integers written plainly in ASCII (``0``, ``-1``,
  ``12``: no sign on positive numbers, no leading zeros); cube exponent 0-15 and at most the
  maximum cube exponent (0-15); cube position -1, 0 or 1; turn 1 or -1; dice ``00``, ``D``
  (``B``, ``R`` in money play) or two digits 1-6; match length 0-32767; scores 0-32767 and
  below the match length in a match; the flags field 0-3 in money play (Jacoby + 2 x beavers),
  0 or 1 in a match (Crawford);
- match context: the Crawford game only in a match, when exactly one side is 1-away, with the
  cube at 1 in the middle and no double offered;
- the board: at most 15 checkers a side, never both sides on one point, and never a position
  that cannot arise in a game (:func:`bgtui.analysis.board.impossible_reason`).
"""

from __future__ import annotations

import base64
import re

import numpy as np

from bgtui.analysis.board import count_problems, impossible_reason
from bgtui.analysis.state import GameState


class PositionFormatError(ValueError):
    """A position string that cannot be read; the message says what is wrong."""


#: how much of a bad input an error message quotes
QUOTE_CHARS = 40
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_PRINTABLE = re.compile(r"[\x20-\x7e]*")
_INT = re.compile(r"0|-?[1-9][0-9]{0,5}")  # ASCII, plain: no '+', no leading zeros


def quote(text, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of at most the first ``limit`` characters of ``text`` (with ``...`` when cut)."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text[: limit + 1]).decode("ascii", "backslashreplace")
    text = str(text)
    return repr(text[:limit]) + ("..." if len(text) > limit else "")


def _text(text, what: str) -> str:
    """``text`` as a str of printable ASCII with surrounding blanks removed."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("ascii")
        except UnicodeDecodeError:
            raise PositionFormatError(
                f"{what} {quote(text)} is not ASCII: positions are written in ASCII"
            ) from None
    if not isinstance(text, str):
        raise PositionFormatError(f"{what} must be text, not {type(text).__name__}")
    t = text.strip(" \t\r\n")
    if not _PRINTABLE.fullmatch(t):
        bad = next(c for c in t if not " " <= c <= "~")
        raise PositionFormatError(
            f"{what} {quote(t)} contains {bad!r} (U+{ord(bad):04X}): positions are written "
            "in printable ASCII"
        )
    return t


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


# -- position rules (bgtui.analysis.board) ----------------------------------------------------
def _check_counts(pos, what: str) -> np.ndarray:
    """``pos`` as ``int8[26]``, or PositionFormatError naming what is wrong with its counts."""
    errs = count_problems([int(c) for c in pos])
    if errs:
        raise PositionFormatError(f"{what} describes an impossible position: {errs[0]}")
    return np.asarray(pos, dtype=np.int8)


def _check_possible(pos, what: str) -> None:
    why = impossible_reason(pos)
    if why is not None:
        raise PositionFormatError(f"{what} describes a position that cannot arise: {why}")


# -- Position ID -------------------------------------------------------------------------------
def decode_position_id(pid) -> np.ndarray:
    """The ``int8[26]`` position (player on roll) of a 14-character Position ID."""
    pid = _text(pid, "the Position ID")
    if len(pid) != 14:
        raise PositionFormatError(f"a Position ID has 14 characters, {quote(pid)} has {len(pid)}")
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
            raise PositionFormatError(
                f"the Position ID gives the {name} {sum(s)} checkers (at most 15)"
            )
    pos = np.zeros(26, dtype=np.int64)
    for k in range(24):
        pos[k + 1] += me[k]
    pos[25] = me[24]
    for k in range(24):
        if opp[k]:
            idx = 24 - k  # opponent's point k+1 is our point 25-(k+1)
            if pos[idx] > 0:
                raise PositionFormatError(
                    f"the Position ID puts both sides on one point (player's point {idx})"
                )
            pos[idx] -= opp[k]
    pos[0] = -opp[24]
    out = _check_counts(pos, "the Position ID")
    canonical = encode_position_id(out)
    if canonical != pid:
        raise PositionFormatError(
            f"the Position ID {quote(pid)} has bits set after its last point (this board's ID "
            f"is {canonical})"
        )
    _check_possible(out, "the Position ID")
    return out


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


def _check_crawford(
    crawford: bool,
    length: int,
    score,
    cube_log: int,
    centred: bool,
    double_offered: bool,
    what: str,
) -> None:
    if not crawford:
        return
    if length == 0:
        raise PositionFormatError(f"{what} marks the Crawford game in money play")
    one_away = [s == length - 1 for s in score]
    if sum(one_away) != 1:
        raise PositionFormatError(
            f"{what} marks the Crawford game at {score[0]}-{score[1]} of a {length}-point match: "
            "it is the game after one side (only one) reaches 1-away"
        )
    if cube_log != 0 or not centred or double_offered:
        raise PositionFormatError(
            f"{what} marks the Crawford game with the cube in play: nobody may double in it"
        )


def decode_match_id(mid) -> dict:
    """The fields of a 12-character Match ID (see the module's docstring for the rules)."""
    mid = _text(mid, "the Match ID")
    if len(mid) != 12:
        raise PositionFormatError(f"a Match ID has 12 characters, {quote(mid)} has {len(mid)}")
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
    if f["tail"] > 1:
        raise PositionFormatError(f"the Match ID {quote(mid)} has bits set past bit 66")
    if f["cube_owner"] == 2:
        raise PositionFormatError("the Match ID's cube owner field is 2 (only 0, 1 and 3 exist)")
    if f["game_state"] > 4:
        raise PositionFormatError(
            f"the Match ID's game state is {f['game_state']} (0 none, 1 playing, 2 over, "
            "3 resigned, 4 dropped)"
        )
    if f["die1"] > 6 or f["die2"] > 6 or (f["die1"] == 0) != (f["die2"] == 0):
        raise PositionFormatError(f"the Match ID's dice {f['die1']}{f['die2']} are not a roll")
    offer = f["double_offered"] or f["resigned"]
    if f["double_offered"] and f["resigned"]:
        raise PositionFormatError("the Match ID offers a double and a resignation at once")
    if f["double_offered"] and f["die1"]:
        raise PositionFormatError("the Match ID offers a double after the dice were rolled")
    if f["turn"] != (1 - f["on_roll"] if offer else f["on_roll"]):
        raise PositionFormatError(
            "the Match ID's turn is not the player on roll's"
            + (" opponent, who must answer the offer" if offer else " (nothing is offered)")
        )
    length = f["match_length"]
    if length and (f["score0"] >= length or f["score1"] >= length):
        raise PositionFormatError(
            f"the Match ID's score {f['score0']}-{f['score1']} is not below the match length "
            f"{length}"
        )
    _check_crawford(
        bool(f["crawford"]),
        length,
        (f["score0"], f["score1"]),
        f["cube_log"],
        f["cube_owner"] == 3,
        bool(f["double_offered"]),
        "the Match ID",
    )
    return f


def encode_match_id(f: dict) -> str:
    bits = [0] * 72
    for start, n, name in (
        (0, 4, "cube_log"),
        (4, 2, "cube_owner"),
        (6, 1, "on_roll"),
        (7, 1, "crawford"),
        (8, 3, "game_state"),
        (11, 1, "turn"),
        (12, 1, "double_offered"),
        (13, 2, "resigned"),
        (15, 3, "die1"),
        (18, 3, "die2"),
        (21, 15, "match_length"),
        (36, 15, "score0"),
        (51, 15, "score1"),
        (66, 6, "tail"),
    ):
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
            pos,
            cube_value=2 ** f["cube_log"],
            cube_owner=cube_owner,
            dice=dice,
            match_length=f["match_length"],
            score=(scores[on_roll], scores[1 - on_roll]),
            crawford=bool(f["crawford"]),
            on_roll=on_roll,
            game_state=f["game_state"],
            double_offered=bool(f["double_offered"]),
            resigned=f["resigned"],
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
    offer = state.double_offered or state.resigned
    turn = 1 - on_roll if offer else on_roll
    return encode_match_id(
        {
            "cube_log": state.cube_value.bit_length() - 1,
            "cube_owner": owner,
            "on_roll": on_roll,
            "crawford": int(state.crawford),
            "game_state": state.game_state,
            "turn": turn,
            "double_offered": int(state.double_offered),
            "resigned": state.resigned,
            "die1": d[0],
            "die2": d[1],
            "match_length": state.match_length,
            "score0": scores[0],
            "score1": scores[1],
            "tail": state.match_id_tail,
        }
    )


# -- XGID --------------------------------------------------------------------------------------
_BOARD_CHARS = frozenset("-abcdefghijklmnoABCDEFGHIJKLMNO")
_MAX_FIELD = 32767  # match length and scores: what a Match ID can carry


def _xgid_int(s: str, name: str, lo: int, hi: int) -> int:
    if not _INT.fullmatch(s):
        raise PositionFormatError(
            f"the XGID's {name} must be a whole number written plainly, got {quote(s, 12)}"
        )
    v = int(s)
    if not lo <= v <= hi:
        raise PositionFormatError(f"the XGID's {name} must be {lo} to {hi}, got {v}")
    return v


def _xgid_board(board: str) -> np.ndarray:
    """The 26 slots of an XGID's board field in X's view (X's checkers positive)."""
    if len(board) != 26:
        raise PositionFormatError(
            f"an XGID board has 26 characters, {quote(board)} has {len(board)}"
        )
    bad = next((c for c in board if c not in _BOARD_CHARS), None)
    if bad is not None:
        raise PositionFormatError(f"XGID board character {bad!r} is not '-', 'A'-'O' or 'a'-'o'")
    x = np.zeros(26, dtype=np.int64)
    for i, c in enumerate(board):
        if c == "-":
            continue
        if c.isupper():
            x[i] = ord(c) - ord("A") + 1
        else:
            x[i] = -(ord(c) - ord("a") + 1)
    return x


def _xgid_dice(dice_s: str, money: bool) -> tuple[tuple[int, int] | None, bool]:
    """``(dice, double_offered)`` of an XGID's dice field: '00' (not rolled), 'D' (a double
    offered; in money play also 'B' and 'R', beaver and raccoon) or two digits 1-6."""
    if dice_s == "D" or (money and dice_s in ("B", "R")):
        return None, True
    if dice_s == "00":
        return None, False
    if not re.fullmatch(r"[1-6][1-6]", dice_s):
        raise PositionFormatError(
            f"XGID dice {quote(dice_s, 8)} are not '00', 'D' or two digits 1-6"
            + (" ('B' and 'R' only in money play)" if dice_s in ("B", "R") else "")
        )
    return (int(dice_s[0]), int(dice_s[1])), False


def decode_xgid(text) -> GameState:
    """The GameState of an XGID (``XGID=`` optional; see the module's docstring for the rules)."""
    t = _text(text, "the XGID")
    if t[:5].upper() == "XGID=":
        t = t[5:]
    parts = t.split(":")
    x = _xgid_board(parts[0])
    fields = parts[1:]
    if len(fields) != 9:
        raise PositionFormatError(
            f"an XGID has 9 fields after the board, this one has {len(fields)}"
        )
    max_cube = _xgid_int(fields[8], "maximum cube exponent", 0, 15)
    cube_log = _xgid_int(fields[0], "cube exponent", 0, max_cube)
    cube_pos = _xgid_int(fields[1], "cube position", -1, 1)
    turn = _xgid_int(fields[2], "turn", -1, 1)
    if turn == 0:
        raise PositionFormatError("the XGID's turn must be 1 or -1, got 0")
    dice_s = fields[3]
    score_x = _xgid_int(fields[4], "score of X", 0, _MAX_FIELD)
    score_o = _xgid_int(fields[5], "score of O", 0, _MAX_FIELD)
    length = _xgid_int(fields[7], "match length", 0, _MAX_FIELD)
    money = length == 0
    flags = _xgid_int(
        fields[6], "Jacoby/beaver flags" if money else "Crawford flag", 0, 3 if money else 1
    )
    if x[0] > 0:
        raise PositionFormatError("XGID character 0 is O's bar; it holds X's checkers")
    if x[25] < 0:
        raise PositionFormatError("XGID character 25 is X's bar; it holds O's checkers")
    _check_counts(x, "the XGID")
    pos = x if turn == 1 else -x[::-1]
    _check_possible(pos, "the XGID")
    dice, double_offered = _xgid_dice(dice_s, money)
    if length and (score_x >= length or score_o >= length):
        raise PositionFormatError(
            f"the XGID's score {score_x}-{score_o} is not below the match length {length}"
        )
    _check_crawford(
        not money and bool(flags),
        length,
        (score_x, score_o),
        cube_log,
        cube_pos == 0,
        double_offered,
        "the XGID",
    )
    on_roll = 1 if turn == 1 else 0
    cube_owner = "centred" if cube_pos == 0 else ("player" if cube_pos == turn else "opponent")
    kw = (
        dict(jacoby=bool(flags & 1), beavers=bool(flags & 2))
        if money
        else dict(crawford=bool(flags))
    )
    score = (score_x, score_o) if turn == 1 else (score_o, score_x)
    try:
        return GameState.from_position(
            pos,
            cube_value=2**cube_log,
            cube_owner=cube_owner,
            dice=dice,
            match_length=length,
            score=score,
            on_roll=on_roll,
            double_offered=double_offered,
            max_cube_log=max_cube,
            **kw,
        )
    except ValueError as exc:
        raise PositionFormatError(f"the XGID is inconsistent: {exc}") from None


def format_xgid(state: GameState) -> str:
    turn = 1 if state.on_roll == 1 else -1
    pos = state.position.astype(np.int64)
    x = pos if turn == 1 else -pos[::-1]
    chars = []
    for v in x:
        chars.append("-" if v == 0 else (chr(ord("A") + v - 1) if v > 0 else chr(ord("a") - v - 1)))
    cube_pos = (
        0 if state.cube_owner == "centred" else (turn if state.cube_owner == "player" else -turn)
    )
    if state.double_offered:
        dice = "D"
    elif state.dice is not None:
        dice = "{}{}".format(*state.dice_raw)
    else:
        dice = "00"
    sx, so = state.score if turn == 1 else state.score[::-1]
    flags = (int(state.jacoby) + 2 * int(state.beavers)) if state.is_money else int(state.crawford)
    cube_log = state.cube_value.bit_length() - 1
    # the maximum is at least the cube itself (a Match ID carries no maximum: 2^12 reads back)
    max_cube = max(state.max_cube_log, cube_log)
    return (
        f"XGID={''.join(chars)}:{cube_log}:{cube_pos}:{turn}:{dice}:"
        f"{sx}:{so}:{flags}:{state.match_length}:{max_cube}"
    )


# -- any of them -------------------------------------------------------------------------------
def parse_position(text) -> GameState:
    """A GameState from a Position ID, ``POSID:MATCHID`` or an XGID (``XGID=`` optional).

    ``text`` may be a str or ASCII bytes. Raises :class:`PositionFormatError` and nothing else.
    """
    try:
        return _parse_position(text)
    except PositionFormatError:
        raise
    except (ValueError, TypeError, IndexError, KeyError, OverflowError) as exc:
        # every rule above has its own message; this names anything they missed
        raise PositionFormatError(f"{quote(text)} is not a position: {exc}") from None


def _parse_position(text) -> GameState:
    if text is None:
        text = ""
    t = _text(text, "the position")
    if not t:
        raise PositionFormatError("empty position: give a Position ID, POSID:MATCHID or an XGID")
    if t[:5].upper() == "XGID=" or (len(t) > 26 and t[26:27] == ":"):
        return decode_xgid(t)
    if ":" in t:
        pid, _, mid = t.partition(":")
        pos = decode_position_id(pid)
        f = decode_match_id(mid)
        return _state_from_match(pos, f)
    if len(t) != 14:
        raise PositionFormatError(
            f"{quote(t)} is not a position: a Position ID has 14 characters ({len(t)} given), "
            "a Match ID follows it after ':', an XGID starts with 'XGID='"
        )
    try:
        return GameState.from_position(decode_position_id(t))
    except ValueError as exc:
        raise PositionFormatError(f"the Position ID is inconsistent: {exc}") from None
