"""Messages posted by thread workers: immutable payloads, handled on the main thread.

Workers never touch widgets (style.md 4.4); they post one of these and the handler owns the
state. ``run_id`` ties a result to the request that started it, so a late result of an
abandoned request is dropped. Each message is a dataclass (Textual's ``Message`` initialises
itself in ``__post_init__``); ``eq=False`` keeps them compared by identity, as messages are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from bgtui.analysis.models import CubeDecision, Evaluation, PlayRow, RolloutSnapshot


@dataclass(eq=False)
class WarmupProgressed(Message):
    stage: str
    fraction: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WarmupProgressed)


@dataclass(eq=False)
class EngineReady(Message):
    """Warm-up reached ``part``: "analysis" (evaluation, ranking plays, cube actions, play
    mode may run) or "all" (rollouts too)."""

    part: str = "all"


@dataclass(eq=False)
class Evaluated(Message):
    """An evaluation of ``state`` at ``ply``: the position, the plays of its dice (if any) and the
    cube action."""

    run_id: int
    state: Any
    ply: int
    evaluation: Evaluation
    plays: tuple[PlayRow, ...]
    cube: CubeDecision | None


@dataclass(eq=False)
class RolloutProgressed(Message):
    """A rollout snapshot. A newer snapshot of the same run replaces an older one still queued,
    so a slow screen never falls behind (memray's pattern)."""

    run_id: int
    snapshot: RolloutSnapshot

    def can_replace(self, message: Message) -> bool:
        return (
            isinstance(message, RolloutProgressed)
            and message.run_id == self.run_id
            and message.snapshot.analysis_id == self.snapshot.analysis_id
        )


@dataclass(eq=False)
class RolloutEnded(Message):
    """The rollout worker returned. ``resume`` is the service's opaque handle for continuing
    (or saving) the rollout; None when the service offers none."""

    run_id: int
    resume: Any


# -- play mode ---------------------------------------------------------------------------------
@dataclass(eq=False)
class EngineActed(Message):
    """The engine took its turn: ``kind`` is "double", "move", "take" or "pass"; ``state`` is the
    new GameState; ``text`` says what happened."""

    game_id: int
    kind: str
    state: Any
    text: str
    dice: tuple[int, int] | None = None
    detail: CubeDecision | None = None


@dataclass(eq=False)
class FeedbackReady(Message):
    """How much equity the user's last decision lost versus the best (or a hint)."""

    game_id: int
    text: str
    loss: float | None = None
    mwc_loss: float | None = None  # at a match score: the MWC lost
