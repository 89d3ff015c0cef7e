"""The analysis service that the TUI and the command line talk to.

``bgtui.analysis.service.Analyzer`` is the real implementation over the engine;
``bgtui.analysis.fake.FakeAnalyzer`` is a deterministic test double with the same methods.
Every method is plain Python; long work (rollouts) is a generator of immutable snapshots that
stops promptly when its :class:`~bgtui.analysis.cancel.CancelToken` is set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Protocol

from bgtui.analysis.cancel import CancelToken
from bgtui.analysis.models import (
    CubeDecision,
    Evaluation,
    PlayRow,
    RolloutSettings,
    RolloutSnapshot,
)


class AnalysisService(Protocol):
    def warm_up(
        self,
        progress: Callable[[str, float], None] | None = None,
        ready: Callable[[str], None] | None = None,
    ) -> None:
        """Compile/load everything (kernels, weights, bearoff databases).

        ``progress(stage_description, fraction_done)`` is called as stages complete;
        ``ready("analysis")`` as soon as evaluation, ranking plays and cube actions are warm
        (the rollouts warm up after it). Blocking; call it from a worker thread.
        """

    def evaluate(self, state, ply: int = 0) -> Evaluation:
        """Value of ``state`` (a GameState) for the player on roll, before rolling."""

    def rank_plays(self, state, dice: tuple[int, int], ply: int = 0) -> list[PlayRow]:
        """Every legal play of ``dice``, best first, figures after the play (mover's view)."""

    def cube(self, state, ply: int = 0) -> CubeDecision:
        """Cube action for the player on roll (money play)."""

    def apply_play(self, state, move: str):
        """The GameState after ``move`` (notation) with the opponent on roll; raises ValueError
        with a clear message when the move is not legal for ``state.dice``."""

    def iter_rollout(
        self,
        state,
        settings: RolloutSettings,
        moves: Sequence[str] | None = None,
        cancel: CancelToken | None = None,
        resume: object | None = None,
    ) -> Iterator[RolloutSnapshot]:
        """Roll out the position (``moves`` None) or the candidate ``moves`` of ``state.dice``
        with the same dice for every candidate. Yields snapshots >= 5 times a second; the last
        one has ``finished`` (or ``cancelled``) set. ``resume`` is a saved rollout state
        (``snapshot_state``) to continue from."""
