"""Code outside the engine uses it through ``bgtui.engine``'s public names only: no import of an
engine submodule (``bgtui.engine.evaluate``, ``from bgtui.engine import bearoff``) and no
underscore name. Tests are exempt: they test the kernels themselves."""

import ast
from pathlib import Path

import bgtui.engine

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "bgtui" / "engine"
SUBMODULES = {p.stem for p in ENGINE.glob("*.py")} - {"__init__"}


def _outside_files():
    files = [p for p in (ROOT / "bgtui").rglob("*.py") if ENGINE not in p.parents]
    for folder in ("benchmarks", "evaluation", "research"):
        files += (ROOT / folder).rglob("*.py")
    return sorted(files)


def _violations(path: Path, root: Path = ROOT):
    where = path.relative_to(root)
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bgtui.engine."):
                    yield f"{where}:{node.lineno}: import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("bgtui.engine."):
                yield f"{where}:{node.lineno}: from {node.module} import ..."
            elif node.module == "bgtui.engine":
                for alias in node.names:
                    if alias.name.startswith("_"):
                        yield f"{where}:{node.lineno}: private name {alias.name}"
                    elif alias.name in SUBMODULES:
                        yield f"{where}:{node.lineno}: submodule {alias.name}"
                    elif alias.name not in bgtui.engine.__all__:
                        yield f"{where}:{node.lineno}: {alias.name} is not exported"


def test_scan_covers_the_layers():
    files = {p.relative_to(ROOT).parts[0:2] for p in _outside_files()}
    for part in [("bgtui", "analysis"), ("bgtui", "training"), ("bgtui", "ui")]:
        assert part in files
    assert not any(ENGINE in p.parents for p in _outside_files())


def test_code_outside_the_engine_imports_only_its_public_names():
    found = [v for p in _outside_files() for v in _violations(p)]
    assert not found, "\n".join(found)


def test_the_scan_finds_each_kind_of_violation(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import bgtui.engine._jit\n"
        "from bgtui.engine.evaluate import equity\n"
        "from bgtui.engine import _nets, bearoff, no_such_name, equity\n"
    )
    assert list(_violations(bad, tmp_path)) == [
        "bad.py:1: import bgtui.engine._jit",
        "bad.py:2: from bgtui.engine.evaluate import ...",
        "bad.py:3: private name _nets",
        "bad.py:3: submodule bearoff",
        "bad.py:3: no_such_name is not exported",
    ]
