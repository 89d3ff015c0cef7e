"""Code outside the engine uses it through ``bgtui.engine``'s public names only: no import of an
engine submodule (``bgtui.engine.evaluate``, ``from bgtui.engine import bearoff``) and no
underscore name. Training (``bgtui.training``) is imported within bgtui by ``bgtui train``
(``bgtui/cli/train.py``) alone, never by the benchmarks, and by the evaluation and research
scripts through its public names only. Tests are exempt: they test the kernels themselves."""

import ast
from pathlib import Path

import bgtui.engine

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "bgtui" / "engine"
TRAINING = ROOT / "bgtui" / "training"
SUBMODULES = {p.stem for p in ENGINE.glob("*.py")} - {"__init__"}


def _outside_files():
    files = [p for p in (ROOT / "bgtui").rglob("*.py") if ENGINE not in p.parents]
    for folder in ("benchmarks", "evaluation", "research"):
        files += (ROOT / folder).rglob("*.py")
    return sorted(files)


def _outside_training_files():
    files = [p for p in (ROOT / "bgtui").rglob("*.py") if TRAINING not in p.parents]
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


def _training_imports(path: Path):
    """(line, module, names imported from it) of each import of ``bgtui.training`` or a module
    of it in ``path``; ``names`` is empty for ``import bgtui.training...``."""
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "bgtui.training" or alias.name.startswith("bgtui.training."):
                    yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "bgtui":
                for alias in node.names:
                    if alias.name == "training":
                        yield node.lineno, "bgtui.training", []
            elif node.module == "bgtui.training" or node.module.startswith("bgtui.training."):
                yield node.lineno, node.module, [a.name for a in node.names]


def _training_violations(path: Path, root: Path = ROOT):
    """Each import of training that ``path`` (a file outside ``bgtui/training``) must not
    make: any from bgtui but ``bgtui/cli/train.py``, any from the benchmarks, and from
    anywhere an underscore name (or module)."""
    where = path.relative_to(root)
    for line, module, names in _training_imports(path):
        if where.parts[0] == "bgtui" and where != Path("bgtui", "cli", "train.py"):
            yield f"{where}:{line}: {module} imported outside bgtui train"
        elif where.parts[0] == "benchmarks":
            yield f"{where}:{line}: {module} imported by a benchmark"
        for name in [*module.split(".")[2:], *names]:
            if name.startswith("_"):
                yield f"{where}:{line}: private name {name} of {module}"


def test_the_training_scan_covers_every_layer_but_training():
    files = {p.relative_to(ROOT).parts[0:2] for p in _outside_training_files()}
    for part in [("bgtui", "engine"), ("bgtui", "analysis"), ("bgtui", "ui"), ("bgtui", "cli")]:
        assert part in files
    assert {p.relative_to(ROOT).parts[0] for p in _outside_training_files()} >= {
        "benchmarks",
        "evaluation",
        "research",
    }
    assert not any(TRAINING in p.parents for p in _outside_training_files())


def test_only_bgtui_train_and_the_studies_of_training_import_it_by_public_names():
    found = [v for p in _outside_training_files() for v in _training_violations(p)]
    assert not found, "\n".join(found)


def test_the_training_scan_finds_each_kind_of_violation(tmp_path):
    for folder in ("bgtui/cli", "bgtui/analysis", "benchmarks", "research"):
        (tmp_path / folder).mkdir(parents=True)
    ok = "from bgtui.training.train import fit\nimport bgtui.training.kernels\n"
    (tmp_path / "bgtui/cli/train.py").write_text(ok)
    (tmp_path / "research/ok.py").write_text(ok + "from bgtui.training import adam\n")
    (tmp_path / "bgtui/analysis/bad.py").write_text("def f():\n    from bgtui import training\n")
    (tmp_path / "benchmarks/bad.py").write_text("import bgtui.training.kernels\n")
    (tmp_path / "research/bad.py").write_text(
        "from bgtui.training.kernels import _START, net_classes\n"
        "from bgtui.training._private import x\n"
    )
    found = [
        v
        for f in ("bgtui/cli/train.py", "research/ok.py", "bgtui/analysis/bad.py")
        + ("benchmarks/bad.py", "research/bad.py")
        for v in _training_violations(tmp_path / f, tmp_path)
    ]
    assert found == [
        "bgtui/analysis/bad.py:2: bgtui.training imported outside bgtui train",
        "benchmarks/bad.py:1: bgtui.training.kernels imported by a benchmark",
        "research/bad.py:1: private name _START of bgtui.training.kernels",
        "research/bad.py:2: private name _private of bgtui.training._private",
    ]
