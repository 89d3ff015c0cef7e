"""Messages posted by thread workers: immutable payloads, handled on the main thread.

Workers never touch widgets (style.md 4.4); they post one of these and the handler owns the
state. ``run_id`` ties a result to the request that started it, so a late result of an
abandoned request is dropped.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message

from bgtui.analysis.models import CubeDecision, Evaluation, PlayRow, RolloutSnapshot


class WarmupProgressed(Message):
    def __init__(self, stage: str, fraction: float) -> None:
        super().__init__()
        self.stage = stage
        self.fraction = fraction

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WarmupProgressed)


class EngineReady(Message):
    """Warm-up reached ``part``: "analysis" (evaluation, ranking plays, cube actions, play
    mode may run) or "all" (rollouts too)."""

    def __init__(self, part: str = "all") -> None:
        super().__init__()
        self.part = part


class Evaluated(Message):
    """An evaluation of ``state`` at ``ply``: the position, the plays of its dice (if any) and the
    cube action."""

    def __init__(self, run_id: int, state, ply: int, evaluation: Evaluation,
                 plays: tuple[PlayRow, ...], cube: CubeDecision | None) -> None:
        super().__init__()
        self.run_id = run_id
        self.state = state
        self.ply = ply
        self.evaluation = evaluation
        self.plays = plays
        self.cube = cube


class RolloutProgressed(Message):
    """A rollout snapshot. A newer snapshot of the same run replaces an older one still queued,
    so a slow screen never falls behind (memray's pattern)."""

    def __init__(self, run_id: int, snapshot: RolloutSnapshot) -> None:
        super().__init__()
        self.run_id = run_id
        self.snapshot = snapshot

    def can_replace(self, message: Message) -> bool:
        return (isinstance(message, RolloutProgressed) and message.run_id == self.run_id
                and message.snapshot.analysis_id == self.snapshot.analysis_id)


class RolloutEnded(Message):
    """The rollout worker returned. ``resume`` is the service's opaque handle for continuing
    (or saving) the rollout; None when the service offers none."""

    def __init__(self, run_id: int, resume: Any) -> None:
        super().__init__()
        self.run_id = run_id
        self.resume = resume


# -- play mode ---------------------------------------------------------------------------------
class EngineActed(Message):
    """The engine took its turn: ``kind`` is "double", "move", "take" or "pass"; ``state`` is the
    new GameState; ``text`` says what happened."""

    def __init__(self, game_id: int, kind: str, state, text: str,
                 dice: tuple[int, int] | None = None,
                 detail: CubeDecision | None = None) -> None:
        super().__init__()
        self.detail = detail
        self.game_id = game_id
        self.kind = kind
        self.state = state
        self.text = text
        self.dice = dice


class FeedbackReady(Message):
    """How much equity the user's last decision lost versus the best (or a hint)."""

    def __init__(self, game_id: int, text: str, loss: float | None = None,
                 mwc_loss: float | None = None) -> None:
        super().__init__()
        self.game_id = game_id
        self.text = text
        self.loss = loss
        self.mwc_loss = mwc_loss  # at a match score: the MWC lost
