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
