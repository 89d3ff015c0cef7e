"""Layering and styling rules: engine/analysis never import Textual; no hard-coded colours."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def _modules_after(code):
    out = subprocess.run([sys.executable, "-c", code + "; import sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_engine_and_analysis_do_not_import_textual_or_rich():
    mods = _modules_after("import bgtui.engine.rollout, bgtui.analysis.service, "
                          "bgtui.analysis.rollout, bgtui.analysis.formats, bgtui.analysis.cube")
    assert not any(m == "textual" or m.startswith("textual.") for m in mods)
    assert not any(m == "rich" or m.startswith("rich.") for m in mods)


def test_ui_imports_no_engine_module():
    mods = _modules_after("import bgtui.ui.app")
    assert not any(m.startswith("bgtui.engine") for m in mods)
    for f in (ROOT / "bgtui" / "ui").rglob("*.py"):
        assert "bgtui.engine" not in f.read_text(), f


def test_stylesheets_use_theme_variables_only():
    for f in (ROOT / "bgtui" / "ui").rglob("*.tcss"):
        text = f.read_text()
        assert not re.search(r"#[0-9a-fA-F]{3,8}\b(?![-\w])", re.sub(r"#[a-z][\w-]*", "", text)), f
        assert not re.search(r"\brgb\(", text), f
