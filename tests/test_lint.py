"""The tree passes ruff's checks and is in ruff's format, as configured in pyproject.toml."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "args",
    [["check", "--no-cache", "--quiet"], ["format", "--check", "--no-cache"]],
    ids=["ruff_finds_nothing_in_the_tree", "tree_is_in_ruff_format"],
)
def test_ruff(args):
    r = subprocess.run(
        [sys.executable, "-m", "ruff", *args, str(ROOT)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stdout + r.stderr
