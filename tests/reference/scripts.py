"""Scripts beside the package (``research/``, ``tools/``), loaded as modules for their tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_script(relative: str):
    """The module of the script at ``relative`` (from the repository's root, e.g.
    ``research/experts.py``): a script, not a package, so imported from its path."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
