"""Slow, obviously correct references for the evaluator's hand-crafted features: roll by
roll, checker by checker (the fast kernels in ``bgtui.engine.inputs`` are checked against them)."""


def shots_reference(pos):
    """Rolls (of 36) on which the opponent can hit at least one of the player's blots.

    The opponent moves upward (index increasing) from slot 0 (their bar). Points with two or
    more of the player's checkers block intermediate landings. With checkers on the bar the
    opponent can hit only with entering checkers (an approximation that ignores the second die
    being used by another checker after entry).
    """
    nblots = 0
    for i in range(1, 25):
        if pos[i] == 1:
            nblots += 1
    if nblots == 0:
        return 0.0
    on_bar = pos[0] < 0
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            hit = False
            for j in range(0, 24):
                if hit:
                    break
                if pos[j] >= 0:
                    continue
                if on_bar and j != 0:
                    break
                if d1 == d2:
                    loc = j
                    for k in range(4):
                        loc += d1
                        if loc > 24:
                            break
                        if pos[loc] == 1:
                            hit = True
                            break
                        if pos[loc] >= 2:
                            break
                        if on_bar and pos[0] < -1:
                            break  # two or more on the bar: each die enters its own checker
                else:
                    a = j + d1
                    b = j + d2
                    if a <= 24 and pos[a] == 1:
                        hit = True
                    elif b <= 24 and pos[b] == 1:
                        hit = True
                    elif j + d1 + d2 <= 24 and pos[j + d1 + d2] == 1:
                        if not (on_bar and pos[0] < -1):
                            if (a <= 24 and pos[a] < 2) or (b <= 24 and pos[b] < 2):
                                hit = True
            if hit:
                total += w
    return total


def escapes_reference(pos, b):
    """Rolls (of 36) on which a player checker on point ``b`` can pass the opponent's last
    blocking point (two or more opponent checkers) among the 12 points in front of it."""
    blocks = [k for k in range(max(1, b - 12), b) if pos[k] <= -2]
    if not blocks:
        return 36.0
    need = b - blocks[0]  # must move more than this many pips (past the farthest block)
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            ok = False
            if d1 == d2:
                loc = b
                for k in range(4):
                    loc -= d1
                    if loc < 1:
                        break
                    if pos[loc] <= -2:
                        break
                    if b - loc > need:
                        ok = True
                        break
            else:
                for first in range(2):
                    da = d1 if first == 0 else d2
                    db = d2 if first == 0 else d1
                    a = b - da
                    if a < 1:
                        continue
                    if pos[a] <= -2:
                        continue
                    if da > need:
                        ok = True
                        break
                    c = a - db
                    if c >= 1 and pos[c] > -2 and da + db > need:
                        ok = True
                        break
            if ok:
                total += w
    return total


def hit_loss_reference(pos):
    """Pips the player loses to a hit, summed over the 36 rolls: for each roll the largest
    ``25 - b`` among the blots ``b`` it can hit (the same movement rules as
    :func:`shots_reference`; a blot does not stop a double's checker, so the blots beyond it
    on the way are hit too)."""
    on_bar = pos[0] < 0
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = 1.0 if d1 == d2 else 2.0
            best = 0
            for j in range(0, 24):
                if pos[j] >= 0:
                    continue
                if on_bar and j != 0:
                    break
                reach = []
                if d1 == d2:
                    loc = j
                    for k in range(4):
                        loc += d1
                        if loc > 24 or pos[loc] >= 2:
                            break
                        reach.append(loc)
                        if on_bar and pos[0] < -1:
                            break
                else:
                    a, b = j + d1, j + d2
                    reach += [x for x in (a, b) if x <= 24]
                    c = j + d1 + d2
                    if c <= 24 and not (on_bar and pos[0] < -1):
                        if (a <= 24 and pos[a] < 2) or (b <= 24 and pos[b] < 2):
                            reach.append(c)
                for x in reach:
                    if pos[x] == 1:
                        best = max(best, 25 - x)
            total += w * best
    return total


def side_features_reference(pos, out, f, opp_pips, race):
    """The ``15`` hand-crafted features of the side on roll in ``pos`` into
    ``out[f : f + 15]``."""
    pips = 25 * pos[25]
    mine = pos[25]
    for i in range(1, 25):
        n = pos[i]
        if n > 0:
            mine += n
            pips += n * i
    bar = pos[25]
    off = 15 - mine
    out[f + 0] = pips / 100.0
    out[f + 1] = (opp_pips - pips) / 50.0
    if race:
        for k in range(2, 15):
            out[f + k] = 0.0
        stack = 0
        for i in range(1, 25):
            if pos[i] > 3:
                stack += pos[i] - 3
        out[f + 11] = stack / 10.0
        out[f + 12] = (off / 15.0) ** 2
        return
    back = bar
    anchors = 0
    for i in range(19, 25):
        if pos[i] > 0:
            back += pos[i]
        if pos[i] >= 2:
            anchors += 1
    out[f + 2] = back / 5.0
    out[f + 3] = anchors / 2.0
    rear = 0
    for i in range(25, 0, -1):
        if pos[i] > 0:
            rear = i
            break
    if rear > 0:
        esc = escapes_reference(pos, rear)
    else:
        esc = 36.0
    out[f + 4] = esc / 36.0
    out[f + 5] = (1.0 - esc / 36.0) * (rear / 24.0)
    home = 0
    for i in range(1, 7):
        if pos[i] >= 2:
            home += 1
    out[f + 6] = home / 6.0
    best = 0
    run = 0
    for i in range(1, 25):
        if pos[i] >= 2:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    out[f + 7] = best / 6.0
    out[f + 8] = shots_reference(pos) / 36.0
    blots = 0
    outfield = 0
    stack = 0
    for i in range(1, 25):
        n = pos[i]
        if n == 1:
            blots += 1
        if n > 0 and 7 <= i <= 18:
            outfield += n
        if n > 3:
            stack += n - 3
    out[f + 9] = blots / 4.0
    out[f + 10] = outfield / 15.0
    out[f + 11] = stack / 10.0
    out[f + 12] = (off / 15.0) ** 2
    out[f + 13] = 1.0 if bar > 0 else 0.0
    out[f + 14] = hit_loss_reference(pos) / 360.0
