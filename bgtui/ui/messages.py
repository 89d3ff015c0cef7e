"""Messages posted by workers to the app: immutable payloads, handled on the main thread."""

from __future__ import annotations

from textual.message import Message

from bgtui.analysis.models import CubeDecision, Evaluation, PlayRow, RolloutSnapshot


class EngineReady(Message):
    pass


class WarmupProgressed(Message):
    def __init__(self, stage: str, fraction: float) -> None:
        super().__init__()
        self.stage = stage
        self.fraction = fraction


class Evaluated(Message):
    def __init__(self, evaluation: Evaluation, plays: tuple[PlayRow, ...], cube: CubeDecision) -> None:
        super().__init__()
        self.evaluation = evaluation
        self.plays = plays
        self.cube = cube


class AnalysisProgressed(Message):
    """A rollout snapshot; a newer one of the same analysis replaces an unprocessed older one."""

    def __init__(self, snapshot: RolloutSnapshot) -> None:
        super().__init__()
        self.snapshot = snapshot

    def can_replace(self, message: Message) -> bool:
        return (isinstance(message, AnalysisProgressed)
                and message.snapshot.analysis_id == self.snapshot.analysis_id)
