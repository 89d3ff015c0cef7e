"""The cube panel: a rollout's cube decision as the command line derives it, and a position
where the opponent owns the cube (no double/take rows to show)."""

import io
from dataclasses import replace

import pytest
from rich.console import Console
from textual.app import App, ComposeResult

from bgtui.analysis.fake import FakeAnalyzer
from bgtui.analysis.formats import parse_position
from bgtui.analysis.models import CubeDecision, Equities, PlayRow, Probabilities
from bgtui.ui.fmt import eq
from bgtui.ui.widgets.cube_panel import CubePanel, cube_from_rollout
from tests.ui.ui_helpers import GATE_TIMEOUT, OPENING, run, running, settle, wait_for

P = Probabilities(0.40, 0.10, 0.01, 0.12, 0.01)


def _row(centred, owned, opp):
    return PlayRow(
        move="",
        position_id=OPENING,
        probabilities=P,
        equity=Equities(cubeless=-0.2, centred=centred, owned=owned, opponent_owned=opp),
        equity_se=Equities(cubeless=0.01, centred=0.02, owned=0.03, opponent_owned=0.04),
        trials=1296,
    )


def test_rollout_cube_decision_beavers_a_bad_double_when_beavers_are_on():
    # centred cube, opponent-owns equity -0.30: double/take = 2 x -0.30 = -0.60 < 0, so the
    # taker beavers and the doubler's branch is on a 4-cube: -1.20 (standard error doubles too)
    state = parse_position(OPENING)
    assert state.cube_owner == "centred" and state.beavers
    dec = cube_from_rollout(state, _row(-0.25, -0.1, -0.30))
    assert dec.no_double == -0.25
    assert abs(dec.double_take - (-1.20)) < 1e-12
    assert abs(dec.standard_errors["double_take"] - 2 * 2 * 0.04) < 1e-12
    assert dec.action == "No double"
    no_beavers = cube_from_rollout(replace(state, beavers=False), _row(-0.25, -0.1, -0.30))
    assert abs(no_beavers.double_take - (-0.60)) < 1e-12


class _Host(App):
    def compose(self) -> ComposeResult:
        yield CubePanel(id="cube")


@run
async def test_panel_says_no_cube_access_when_the_opponent_owns_the_cube():
    dec = CubeDecision(
        no_double=-0.31,
        double_take=None,
        double_pass=None,
        action="No double",
        probabilities=P,
        equity=Equities(cubeless=-0.2, cubeful=-0.31),
        ply=2,
        cube_access=False,
    )
    app = _Host()
    async with app.run_test() as pilot:
        panel = app.query_one(CubePanel)
        panel.show(dec)  # must not try to rank None equities
        await pilot.pause()
        console = Console(width=100, file=io.StringIO(), record=True)
        console.print(panel.content)
        text = console.export_text()
        assert "no cube access" in text and "-0.310" in text
        assert "double, take" not in text.lower() and "double, pass" not in text.lower()


@run
async def test_panel_shows_mwc_beside_emg_at_a_match_score():
    dec = CubeDecision(
        no_double=0.015,
        double_take=-0.593,
        double_pass=1.0,
        action="No double",
        probabilities=P,
        equity=Equities(cubeless=0.118, cubeful=0.015),
        ply=0,
        mwc={
            "no_double": 0.65888,
            "double_take": 0.60648,
            "double_pass": 0.74359,
            "cubeful": 0.65888,
        },
    )
    app = _Host()
    async with app.run_test() as pilot:
        panel = app.query_one(CubePanel)
        panel.show(dec)
        await pilot.pause()
        console = Console(width=100, file=io.StringIO(), record=True)
        console.print(panel.content)
        text = console.export_text()
        assert "MWC" in text and "65.89%" in text and "60.65%" in text and "74.36%" in text
        assert "+0.015" in text and "-0.593" in text


def _text(renderable) -> str:
    buf = io.StringIO()
    Console(file=buf, width=120, color_system=None).print(renderable)
    return buf.getvalue()


def test_panel_footer_shows_the_cube_states_and_the_model():
    c = CubeDecision(
        no_double=0.415,
        double_take=0.270,
        double_pass=1.0,
        action="No double",
        probabilities=P,
        equity=Equities(
            cubeless=0.301, cubeful=0.415, centred=0.415, owned=0.528, opponent_owned=0.135
        ),
        ply=2,
        model="cubeful lookahead",
        cube_efficiency=0.78,
    )
    out = _text(CubePanel._footer(c))
    assert "centred +0.415, own cube +0.528, opp. cube +0.135" in out
    assert "Model: cubeful lookahead, x=0.78, 2-ply" in out
    out = _text(CubePanel._footer(replace(c, model="settlement rollout", cube_efficiency=None)))
    assert "Model: settlement rollout\n" in out


class _ModelAnalyzer(FakeAnalyzer):
    """The fake service, its cube decisions labelled as the engine labels them (the model, its
    efficiency, the ply)."""

    def cube(self, state, ply: int = 0):
        c = super().cube(state, ply)
        model = "janowski" if ply == 0 else "cubeful lookahead"
        return replace(c, model=model, cube_efficiency=0.78)


def _panel_text(app) -> str:
    console = Console(width=160, file=io.StringIO(), record=True)
    console.print(app.main_screen.query_one(CubePanel).content)
    return console.export_text()


@pytest.mark.parametrize(
    "owner, words",
    [
        ("centred", ("No double", "Double, take", "Double, pass")),
        ("player", ("No redouble", "Redouble, take", "Redouble, pass")),
    ],
)
@run
async def test_app_cube_pane_shows_the_actions_the_cube_states_the_model_and_ply(
    make_app, owner, words
):
    state = replace(
        parse_position(OPENING), cube_owner=owner, cube_value=1 if owner == "centred" else 2
    )
    analyzer = _ModelAnalyzer(gate_timeout=GATE_TIMEOUT)
    app = make_app(analyzer=analyzer, state=state)
    async with running(app) as pilot:
        m = app.main_screen
        await pilot.press("2")  # 2-ply
        await wait_for(pilot, lambda: not m.evaluating, what="2-ply evaluation")
        await pilot.press("u")
        await wait_for(pilot, lambda: m.cube is not None and m.cube.ply == 2, what="cube")
        await settle(app, pilot)
        want = FakeAnalyzer().cube(state, 2)
        text = _panel_text(app)
        for word, v in zip(words, (want.no_double, want.double_take, want.double_pass)):
            line = next(s for s in text.splitlines() if s.strip().startswith(word))
            assert eq(v) in line
        e = want.equity
        assert (
            f"centred {eq(e.centred)}, own cube {eq(e.owned)}, opp. cube {eq(e.opponent_owned)}"
            in text
        )
        assert "Model: cubeful lookahead, x=0.78, 2-ply" in text
        assert f"Proper action: {want.action}" in text


@run
async def test_app_cube_pane_with_the_opponent_owning_the_cube(make_app):
    state = replace(parse_position(OPENING), cube_owner="opponent", cube_value=2)
    app = make_app(analyzer=_ModelAnalyzer(gate_timeout=GATE_TIMEOUT), state=state)
    async with running(app) as pilot:
        m = app.main_screen
        await pilot.press("u")
        await wait_for(pilot, lambda: m.cube is not None, what="cube")
        await settle(app, pilot)
        want = FakeAnalyzer().cube(state, m.cube.ply)
        text = _panel_text(app)
        assert "no cube access" in text and f"Equity {eq(want.no_double)}" in text
        assert "double, take" not in text.lower()
        e = want.equity
        assert f"own cube {eq(e.owned)}, opp. cube {eq(e.opponent_owned)}" in text
        assert f"Model: janowski, x=0.78, {m.cube.ply}-ply" in text
