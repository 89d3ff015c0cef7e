"""Every test answers in its own process: a `bgtui serve` the developer left running must not
answer the command-line tests (tests/analysis/test_server.py starts its own)."""

import pytest


@pytest.fixture(autouse=True)
def _no_resident_engine(monkeypatch):
    monkeypatch.setenv("BGTUI_NO_SERVER", "1")
    # a warm-up in a test compiles in its own process: no worker processes beside the tests
    monkeypatch.setenv("BGTUI_NO_WARMUP_WORKERS", "1")


@pytest.fixture(scope="module")
def ev():
    """The shipped evaluator's nets (no bear-off databases), loaded once per test module."""
    from bgtui.analysis.weights import load_weights

    return load_weights("bgtui-0.npz")[0]
