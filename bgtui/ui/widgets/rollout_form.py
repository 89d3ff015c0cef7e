"""The rollout-settings pane: every field of RolloutSettings, validated as it is typed.

Each field has a label, an input (a checkbox for yes/no fields) and an error line; the help of
the focused field shows at the bottom. ``settings()`` returns the RolloutSettings or raises
ValueError naming the first bad field.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from textual import on
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Checkbox, Input, Label, Static

from bgtui.analysis.models import MAX_VR_FILTER, RolloutSettings


@dataclass(frozen=True)
class FieldSpec:
    name: str
    kind: type  # int, float or bool
    optional: bool
    label: str
    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False  # strictly greater than ``low``


FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec(
        "trials",
        int,
        False,
        "Trials",
        "Games rolled out per candidate. Multiples of 36 keep the first roll stratified "
        "(1296 = 36 x 36 also stratifies the second).",
        1,
    ),
    FieldSpec(
        "seed",
        int,
        False,
        "Seed",
        "Random seed. The same seed and settings give the same dice and the same result.",
        0,
    ),
    FieldSpec(
        "truncate",
        int,
        False,
        "Truncate after",
        "0 plays every game to the end. Otherwise each game stops after this many rolls "
        "(plies) and the evaluation of the position reached is used.",
        0,
    ),
    FieldSpec(
        "ply",
        int,
        False,
        "Checker-play ply",
        "Ply used to choose the plays inside the rollout: 0 (static evaluation, XG's "
        "1-ply), 1 or 2.",
        0,
        2,
    ),
    FieldSpec(
        "late_ply",
        int,
        True,
        "Late ply",
        "A cheaper ply used after 'Late after' moves. Empty: the same ply throughout.",
        0,
        2,
    ),
    FieldSpec(
        "late_after",
        int,
        True,
        "Late after",
        "Number of moves after which 'Late ply' applies. Empty: never.",
        0,
    ),
    FieldSpec(
        "variance_reduction",
        bool,
        False,
        "Variance reduction",
        "Subtract the luck of each roll, measured by a lookahead evaluation. Unbiased; "
        "the result says how many plain trials it was worth.",
    ),
    FieldSpec(
        "vr_filter",
        int,
        False,
        "VR filter",
        "Variance reduction values only this many plays of each roll, the ones a small "
        "filter net ranks highest, valued at the checker-play ply. 0: every play. 2 "
        "runs about twice as fast and stays unbiased, with a little less reduction.",
        0,
        MAX_VR_FILTER,
    ),
    FieldSpec(
        "quasi_random",
        bool,
        False,
        "Quasi-random dice",
        "Stratify the first three rolls: any 36 consecutive trials hold each first roll "
        "once, blocks of 1296 every pair, 46656 every triple.",
    ),
    FieldSpec(
        "stratify_all",
        bool,
        False,
        "Stratify every roll",
        "Also stratify every later roll ('deck of cards' dice).",
    ),
    FieldSpec(
        "bearoff_truncation",
        bool,
        False,
        "Bear-off truncation",
        "Stop a game when both sides reach the exact two-sided bear-off database.",
    ),
    FieldSpec(
        "one_sided_truncation",
        bool,
        False,
        "One-sided truncation",
        "Also stop in larger bear-offs and in races with one checker a side still coming home, "
        "using the one-sided database's approximation.",
    ),
    FieldSpec(
        "initial_position",
        bool,
        False,
        "Initial position",
        "Roll out as the opening: the first roll of each game is never a double.",
    ),
    FieldSpec(
        "cubeful",
        bool,
        False,
        "Cubeful",
        "Full games with a settlement limit; gives the four cube-state equities of "
        "Dahl's article (cubeless, centred, owned, opponent owns).",
    ),
    FieldSpec(
        "settlement_limit",
        float,
        False,
        "Settlement limit",
        "Cubeful rollouts: a game is settled (cashed) when the cubeless equity passes this value.",
        -3.0,
        3.0,
    ),
    FieldSpec(
        "gammon_play_on",
        float,
        False,
        "Gammon play-on",
        "Cubeful rollouts: keep playing past the settlement limit while the gammon "
        "chances exceed this share.",
        0.0,
        1.0,
    ),
    FieldSpec(
        "live_cube",
        bool,
        False,
        "Live cube",
        "Cube decisions are made inside the trials (Janowski model at 0-ply).",
    ),
    FieldSpec(
        "jacoby",
        bool,
        False,
        "Jacoby rule",
        "Money play: gammons count only after the cube has been turned.",
    ),
    FieldSpec(
        "zehr_split",
        bool,
        False,
        "Zehr split",
        "Split each trial's cube handling as Zehr describes (live-cube rollouts).",
    ),
    FieldSpec(
        "stop_se",
        float,
        True,
        "Stop at SE",
        "Stop when the equity's standard error is below this value. Empty: no such stop.",
        0.0,
        None,
        True,
    ),
    FieldSpec(
        "time_limit",
        float,
        True,
        "Time limit (s)",
        "Stop after this many seconds. Empty: no limit.",
        0.0,
        None,
        True,
    ),
    FieldSpec(
        "prune_sigma",
        float,
        True,
        "Prune at sigma",
        "Stop rolling out candidates worse than the best by this many standard errors. "
        "Empty: never prune.",
        0.0,
        None,
        True,
    ),
    FieldSpec("workers", int, False, "Worker threads", "Parallel workers; 0 uses every core.", 0),
)
assert {f.name for f in FIELDS} == {f.name for f in fields(RolloutSettings)}

SCHEDULER_HELP = (
    "Address of a Dask scheduler (host:8786) whose workers run the trials "
    "(pip install 'bgtui[cluster]' on each; see docs/cluster.md). Same numbers "
    "as on this machine. Empty: this machine's threads."
)

PRESETS: dict[str, RolloutSettings] = {
    "Quick truncated": RolloutSettings(trials=1296, truncate=7, variance_reduction=True),
    "Standard full": RolloutSettings(
        trials=1296, truncate=0, variance_reduction=True, quasi_random=True
    ),
    "Cube rollout": RolloutSettings(trials=1296, truncate=0, cubeful=True, settlement_limit=0.5),
}


def describe(s: RolloutSettings) -> str:
    """One line: the settings that matter most."""
    parts = [
        f"{s.trials} trials",
        f"truncate {s.truncate}" if s.truncate else "full games",
        f"{s.ply}-ply",
    ]
    if s.variance_reduction:
        parts.append(f"VR (filter {s.vr_filter})" if s.vr_filter else "VR")
    if s.quasi_random:
        parts.append("quasi")
    if s.cubeful:
        parts.append(f"cubeful, settlement {s.settlement_limit:g}")
    if s.live_cube:
        parts.append("live cube")
    return ", ".join(parts)


def preset_name(s: RolloutSettings) -> str:
    for name, p in PRESETS.items():
        if p == s:
            return name
    return "custom"


def parse_field(spec: FieldSpec, text: str):
    """The value of ``text`` for ``spec`` or ValueError with a message for the user."""
    t = text.strip()
    if t == "":
        if spec.optional:
            return None
        raise ValueError("required")
    try:
        value = spec.kind(t)
    except ValueError:
        kind = "a whole number" if spec.kind is int else "a number"
        raise ValueError(f"must be {kind}, not {t!r}") from None
    if spec.low is not None:
        if spec.low_open and not value > spec.low:
            raise ValueError(f"must be greater than {spec.low:g}")
        if not spec.low_open and value < spec.low:
            raise ValueError(f"must be at least {spec.low:g}")
    if spec.high is not None and value > spec.high:
        raise ValueError(f"must be at most {spec.high:g}")
    return value


def format_field(spec: FieldSpec, value) -> str:
    if value is None:
        return ""
    if spec.kind is float:
        return f"{value:g}"
    return str(value)


class RolloutForm(VerticalScroll):
    """Edits a RolloutSettings; posts ``RolloutForm.Changed`` after each valid change."""

    BINDINGS = [
        Binding(
            "escape",
            "leave",
            "Back to plays",
            id="rollout.leave_form",
            tooltip="Leave the rollout settings (they are kept) and return to the plays",
        ),
    ]

    class Left(Message):
        """The user left the form (escape)."""

    def action_leave(self) -> None:
        self.post_message(self.Left())

    class Changed(Message):
        def __init__(self, settings: RolloutSettings | None, error: str) -> None:
            super().__init__()
            self.settings = settings
            self.error = error

    class SchedulerChanged(Message):
        """The Dask scheduler's address changed ("": rollouts on this machine)."""

        def __init__(self, address: str) -> None:
            super().__init__()
            self.address = address

    DEFAULT_CSS = """
    RolloutForm .field { height: auto; }
    RolloutForm .field Label.name { width: 22; }
    RolloutForm .field Input { width: 12; }
    RolloutForm #row-scheduler Input { width: 28; }
    RolloutForm .field Checkbox { width: 12; }
    RolloutForm .field Label.error { width: 1fr; padding: 0 1; }
    """

    def __init__(self, settings: RolloutSettings, scheduler: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self._initial = settings
        self._scheduler = scheduler
        self.errors: dict[str, str] = {}

    def compose(self):
        yield Label("", id="form-preset")
        for spec in FIELDS:
            value = getattr(self._initial, spec.name)
            with Horizontal(classes="field", id=f"row-{spec.name}"):
                yield Label(spec.label, classes="name")
                if spec.kind is bool:
                    yield Checkbox("", bool(value), id=f"f-{spec.name}", compact=True)
                else:
                    yield Input(
                        format_field(spec, value),
                        id=f"f-{spec.name}",
                        compact=True,
                        select_on_focus=False,
                    )
                yield Label("", classes="error", id=f"e-{spec.name}")
        with Horizontal(classes="field", id="row-scheduler"):
            yield Label("Dask scheduler", classes="name")
            yield Input(
                self._scheduler,
                id="f-scheduler",
                compact=True,
                select_on_focus=False,
                placeholder="this machine",
            )
            yield Label("", classes="error", id="e-scheduler")
        yield Static("", id="form-help")

    def on_mount(self) -> None:
        self._set_preset_label()

    # -- reading and writing -----------------------------------------------------------------
    def settings(self) -> RolloutSettings:
        """The settings on the form, or ValueError naming the first bad field."""
        from bgtui.analysis.rollout import validate_settings

        values = {}
        for spec in FIELDS:
            w = self.query_one(f"#f-{spec.name}")
            if spec.kind is bool:
                values[spec.name] = bool(w.value)
            else:
                try:
                    values[spec.name] = parse_field(spec, w.value)
                except ValueError as exc:
                    raise ValueError(f"{spec.label}: {exc}") from None
        s = RolloutSettings(**values)
        validate_settings(s)
        return s

    def load(self, settings: RolloutSettings) -> None:
        for spec in FIELDS:
            w = self.query_one(f"#f-{spec.name}")
            value = getattr(settings, spec.name)
            with w.prevent(Input.Changed, Checkbox.Changed):
                w.value = bool(value) if spec.kind is bool else format_field(spec, value)
            self.query_one(f"#e-{spec.name}", Label).update("")
        self.errors.clear()
        self._set_preset_label()

    def _set_preset_label(self) -> None:
        try:
            s = self.settings()
            text = f"Preset: {preset_name(s)}  ({describe(s)})"
        except ValueError as exc:
            text = f"Invalid: {exc}"
        self.query_one("#form-preset", Label).update(text)

    # -- events ------------------------------------------------------------------------------
    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _changed(self, event) -> None:
        event.stop()
        name = event.control.id.removeprefix("f-")
        if name == "scheduler":
            address = event.control.value.strip()
            bad = any(c.isspace() for c in address)
            self.query_one("#e-scheduler", Label).update("no spaces in an address" if bad else "")
            if not bad:
                self.post_message(self.SchedulerChanged(address))
            return
        spec = next(f for f in FIELDS if f.name == name)
        err = ""
        if spec.kind is not bool:
            try:
                parse_field(spec, event.control.value)
            except ValueError as exc:
                err = str(exc)
        self.query_one(f"#e-{name}", Label).update(err)
        if err:
            self.errors[name] = err
        else:
            self.errors.pop(name, None)
        try:
            s = self.settings()
            self.post_message(self.Changed(s, ""))
        except ValueError as exc:
            self.post_message(self.Changed(None, str(exc)))
        self._set_preset_label()

    def on_descendant_focus(self, event) -> None:
        wid = getattr(event.widget, "id", "") or ""
        if wid == "f-scheduler":
            self.query_one("#form-help", Static).update(f"Dask scheduler: {SCHEDULER_HELP}")
        elif wid.startswith("f-"):
            spec = next(f for f in FIELDS if f.name == wid[2:])
            self.query_one("#form-help", Static).update(f"{spec.label}: {spec.help}")


def with_trials(s: RolloutSettings, trials: int) -> RolloutSettings:
    return replace(s, trials=trials)
