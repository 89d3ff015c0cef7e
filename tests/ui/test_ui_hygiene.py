"""Layering and styling rules: engine/analysis never import Textual; the UI never imports the
engine; stylesheets use theme variables only; every key binding has an id (for keymaps)."""

import ast
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

from textual.binding import Binding

ROOT = Path(__file__).resolve().parent.parent.parent
UI = ROOT / "bgtui" / "ui"

_WALK = """
import importlib, pkgutil, sys
for pkg in {pkgs!r}:
    mod = importlib.import_module(pkg)
    for info in pkgutil.walk_packages(mod.__path__, pkg + "."):
        if not info.name.endswith(".__main__"):  # that one runs the program
            importlib.import_module(info.name)
print(" ".join(sys.modules))
"""


def _modules_after_importing_all(*packages) -> set[str]:
    """Every module loaded (in a fresh interpreter) by importing every module of ``packages``."""
    out = subprocess.run(
        [sys.executable, "-c", _WALK.format(pkgs=packages)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


def _under(mods, name):
    return sorted(m for m in mods if m == name or m.startswith(name + "."))


def test_engine_and_analysis_do_not_import_textual_or_rich():
    mods = _modules_after_importing_all("bgtui.engine", "bgtui.analysis")
    assert "bgtui.engine.rollout" in mods and "bgtui.analysis.service" in mods
    assert _under(mods, "textual") == []
    assert _under(mods, "rich") == []
    assert _under(mods, "bgtui.ui") == []


def test_ui_imports_no_engine_module():
    mods = _modules_after_importing_all("bgtui.ui")
    assert "bgtui.ui.screens.main" in mods and "bgtui.ui.app" in mods
    assert _under(mods, "bgtui.engine") == []
    assert _under(mods, "numba") == []  # the first frame never waits for the JIT
    for f in UI.rglob("*.py"):  # also the imports inside functions (lazy imports)
        assert _engine_imports(f.read_text()) == [], f


def _engine_imports(source: str) -> list[str]:
    """The engine modules ``source`` imports anywhere (docstrings and comments may name them)."""
    return _imports_of(source, "engine")


def _imports_of(source: str, package: str) -> list[str]:
    """The modules of ``bgtui.<package>`` that ``source`` imports anywhere, lazy imports inside
    functions included (docstrings and comments may name them)."""
    name = f"bgtui.{package}"
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if _under([a.name], name)]
        elif isinstance(node, ast.ImportFrom) and _under([node.module or ""], name):
            found.append(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module == "bgtui":
            found += ["bgtui." + a.name for a in node.names if a.name == package]
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and re.fullmatch(re.escape(name) + r"(\.\w+)*", node.value)
        ):
            found.append(node.value)  # importlib.import_module("bgtui.<package>...")
    return found


def test_only_the_train_command_imports_the_training_package():
    mods = _modules_after_importing_all("bgtui.engine", "bgtui.analysis", "bgtui.ui", "bgtui.cli")
    assert "bgtui.cli.train" in mods and "bgtui.analysis.service" in mods
    assert _under(mods, "bgtui.training") == []
    allowed = {ROOT / "bgtui" / "cli" / "train.py"}
    for f in (ROOT / "bgtui").rglob("*.py"):  # the lazy imports too
        if f in allowed or f.is_relative_to(ROOT / "bgtui" / "training"):
            continue
        assert _imports_of(f.read_text(), "training") == [], f


def test_training_imports_the_engine_and_analysis_but_no_user_interface():
    mods = _modules_after_importing_all("bgtui.training")
    assert "bgtui.training.kernels" in mods and "bgtui.analysis.weights" in mods
    for outside in ("bgtui.ui", "bgtui.cli", "textual", "rich"):
        assert _under(mods, outside) == [], outside


def test_engine_import_check_sees_lazy_imports_not_prose():
    assert _engine_imports("def f():\n    from bgtui.engine.movegen import x\n") == [
        "bgtui.engine.movegen"
    ]
    assert _engine_imports("import bgtui.engine\nfrom bgtui import engine\n") == [
        "bgtui.engine",
        "bgtui.engine",
    ]
    assert _engine_imports('"""Never imports bgtui.engine kernels."""\n# bgtui.engine\n') == []
    assert _imports_of("def f():\n    from bgtui.training.train import fit\n", "training") == [
        "bgtui.training.train"
    ]
    assert _imports_of("from bgtui import training\nimport bgtui.trainingx\n", "training") == [
        "bgtui.training"
    ]


#: properties whose values are colours (Textual CSS)
COLOUR_PROPS = re.compile(
    r"^(color|background|tint|outline(-\w+)?|border(-\w+)?|"
    r"scrollbar-[\w-]*color|link-(color|background)(-hover)?|"
    r"[\w-]*-color|[\w-]*-background)$"
)
#: words allowed in a colour property besides $variables and numbers
NON_COLOUR_WORDS = {
    "none",
    "hidden",
    "blank",
    "ascii",
    "round",
    "solid",
    "thick",
    "double",
    "dashed",
    "heavy",
    "inner",
    "outer",
    "hkey",
    "vkey",
    "tall",
    "wide",
    "panel",
    "tab",
    "transparent",
    "auto",
    "initial",
    "inherit",
}


def _stylesheets():
    """(name, css) for every .tcss file and every DEFAULT_CSS / CSS string of the UI."""
    for f in UI.rglob("*.tcss"):
        yield str(f), f.read_text()
    for f in UI.rglob("*.py"):
        for m in re.finditer(r'(DEFAULT_CSS|CSS)\s*=\s*"""(.*?)"""', f.read_text(), re.S):
            yield f"{f}:{m.group(1)}", m.group(2)


def _colour_problems(css: str) -> list[str]:
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    out = []
    for prop, value in re.findall(r"([\w-]+)\s*:\s*([^;{}]+);", css):
        if not COLOUR_PROPS.match(prop):
            continue
        for token in value.split():
            if token.startswith("$") or re.fullmatch(r"-?[\d.]+%?", token):
                continue
            if token.lower() in NON_COLOUR_WORDS:
                continue
            out.append(f"{prop}: {value.strip()}")
    return out


def test_colour_check_catches_hard_coded_colours():
    # the check itself: hex (also ones that look like ids), rgb(), names and ansi colours
    for bad in (
        "color: #abc;",
        "background: #ffaf5f;",
        "border: round #123456;",
        "color: rgb(1,2,3);",
        "background: red;",
        "color: ansi_bright_red;",
        "scrollbar-color: white 50%;",
    ):
        assert _colour_problems(bad), bad
    for good in (
        "color: $text-muted;",
        "border: round $primary;",
        "background: $panel 50%;",
        "text-style: bold reverse;",
        "width: 1fr;",
        "#status { height: 1; }",
    ):
        assert not _colour_problems(good), good


def test_stylesheets_use_theme_variables_only():
    sheets = list(_stylesheets())
    assert any(name.endswith("app.tcss") for name, _ in sheets)
    for name, css in sheets:
        assert not re.search(r"\brgba?\(|\bhsla?\(", css), name
        assert _colour_problems(css) == [], name


def _binding_owners():
    """(qualified class name, binding) for every BINDINGS entry of every class in bgtui.ui."""
    import bgtui.ui

    for info in pkgutil.walk_packages(bgtui.ui.__path__, "bgtui.ui."):
        mod = importlib.import_module(info.name)
        for _, cls in inspect.getmembers(mod, inspect.isclass):
            if cls.__module__ != mod.__name__:
                continue
            for b in cls.__dict__.get("BINDINGS", []):
                yield f"{cls.__module__}.{cls.__qualname__}", b


def test_every_binding_has_a_unique_dotted_id():
    owners = list(_binding_owners())
    assert len(owners) > 40  # every screen's bindings were found
    ids = {}
    for owner, b in owners:
        assert isinstance(b, Binding), f"{owner}: {b!r} is not a Binding (no id possible)"
        assert b.id and re.fullmatch(r"[a-z]+(\.[a-z0-9_]+)+", b.id), f"{owner}: {b}"
        assert b.id not in ids, f"{b.id} used by {owner} and {ids[b.id]}"
        ids[b.id] = owner
