"""The help screen (``?``): every key of every screen, every setting and what every number means.

The key tables are built from the screens' BINDINGS (with the user's keymap applied), so the
help can never disagree with the Footer.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown

from bgtui.ui.widgets.rollout_form import FIELDS, PRESETS, describe

NUMBERS = """\
## What the numbers mean

Numbers follow GNU Backgammon. Where GNU Backgammon and eXtreme Gammon differ, bgtui follows
GNU Backgammon.

* **Points** are numbered from the side on roll (`●`, moving 24 → 1; `bar` = 25, `off` = 0).
  The opponent is `○` (ASCII board: `O` on roll, `X` opponent).
* **Probabilities** of a position are for the player on roll *before* rolling; a play's
  figures are the mover's *after* the play. The five, in order: win (W), win gammon (W G),
  win backgammon (W BG), lose gammon (L G), lose backgammon (L BG). Gammons include
  backgammons; lose = 100% − win. Shown as percentages with one decimal (52.5%).
* **Cubeless equity** = 2·W − 1 + WG − LG + WBG − LBG, between −3 and +3, on a 1-cube.
  **Cubeful** equity is the value in the actual cube state (money play, Jacoby rule and
  beavers as the position says), also per 1-cube. Equities are shown with a sign and three
  decimals (+0.076).
* **Diff** is a play's equity minus the best play's (≤ 0).
* **Ply**: 0-ply is the static evaluation (the neural net's output for the position).
  eXtreme Gammon calls this *1-ply*. 1-ply averages the 0-ply value of the best play for each
  of the 21 rolls; 2-ply looks one roll further, and so on. GNU Backgammon counts the same way.
* **Eval** says how a row was evaluated: `0-ply`, `2-ply`, or `R 1296` (rolled out, 1296
  trials).
* **Rollouts** play the position out many times. Each figure carries a standard error
  (`±0.004`); the difference between two candidates uses a *paired* standard error, because
  every candidate is rolled out with the same dice. Games/s is the speed and time left
  is an estimate. With variance reduction the status shows how many plain trials it was worth.
* **Cube-state equities** (Dahl, from a cubeful rollout): cubeless; cube centred; the
  player on roll owns the cube; the opponent owns it. All are per 1-cube.
* **Cube action**: the equities of *no double*, *double, take* and *double, pass* (1.000) for
  the player on roll, and the proper action: `No double`, `Double, take`, `Double, pass`,
  `Too good to double, take`, `Too good to double, pass` (or `No redouble`, `Redouble, take`, …
  when the player owns the cube). *Dahl's estimate* of the cube's value is
  0.35 × (P(W) + P(G)/2). Take and cash points are winning chances.
* **IDs**: the GNU Backgammon Position ID (14 characters) and Match ID (12), and the eXtreme
  Gammon XGID. Copy them with `y` and paste any of them with `l`.
* **Play mode** reports the equity each decision of yours lost against the best decision at
  the engine's ply: cubeless for checker plays, cubeful for cube decisions.
"""


def _key_name(app, binding: Binding) -> str:
    keymap = getattr(app, "_keymap", {}) or {}
    key = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return ", ".join(app.get_key_display(Binding(k.strip(), "")) for k in key.split(","))


def keys_markdown(app, sections: Sequence[tuple[str, Iterable]]) -> str:
    out = []
    for title, bindings in sections:
        out.append(f"## {title}\n")
        out.append("| Key | Action | What it does |")
        out.append("|---|---|---|")
        for b in bindings:
            if not isinstance(b, Binding):
                continue
            out.append(f"| `{_key_name(app, b)}` | {b.description} | {b.tooltip or ''} |")
        out.append("")
    return "\n".join(out)


def settings_markdown() -> str:
    out = ["## Rollout settings\n", "| Setting | Meaning |", "|---|---|"]
    for f in FIELDS:
        out.append(f"| {f.label} | {f.help} |")
    out.append("")
    out.append("Presets (`p` cycles them):\n")
    for name, s in PRESETS.items():
        out.append(f"* **{name}**: {describe(s)}")
    out.append("")
    out.append("## App settings (`S`)\n")
    out.append(
        "* **Board style**: `auto` draws Unicode when the terminal can show it and plain "
        "ASCII otherwise; `unicode` or `ascii` force one."
    )
    out.append(
        "* **Theme**: `bgtui-dark`, `bgtui-light`, or `bgtui-16` for terminals with 16 "
        "colours. `NO_COLOR` in the environment turns colours off."
    )
    out.append(
        "* **Evaluation ply** (also the keys `0`-`3`) and the **engine's ply in play mode**."
    )
    out.append(
        "* **Play seed**: the dice of play mode come from a seeded generator; 0 picks a "
        "new seed each game."
    )
    out.append(
        "* **Play a match to**: play mode plays a match to that many points (Crawford "
        "rule, errors in EMG and MWC); 0 plays money games."
    )
    out.append("* **At a match score**: MWC first, then EMG (or EMG first) in every pane.")
    out.append(
        "* **Match equity table**: a file in GNU Backgammon's XML format; empty: Kazaross-XG2."
    )
    out.append("")
    return "\n".join(out)


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close", id="help.close")]

    def __init__(self, sections: Sequence[tuple[str, Iterable]]) -> None:
        super().__init__()
        self.sections = sections

    def compose(self) -> ComposeResult:
        text = (
            "# bgtui help\n\nEverything is reachable from the keyboard; `ctrl+p` opens the "
            "command palette. Escape closes this help.\n\n"
            + keys_markdown(self.app, self.sections)
            + settings_markdown()
            + NUMBERS
        )
        with VerticalScroll(id="help-body"):
            yield Markdown(text, id="help-text")

    def on_mount(self) -> None:
        self.query_one("#help-body").focus()
