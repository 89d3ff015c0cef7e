"""Fixtures for the UI tests: an app on the fake service, isolated from the user's config and
data dirs and from NO_COLOR, Unicode board, fixed theme; gates that are always released."""

import threading

import pytest
from ui_helpers import fake

from bgtui.ui.app import BgTuiApp


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path, monkeypatch):
    """No user config, data dir or NO_COLOR from the environment leaks into a test."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("BGTUI_ASCII", raising=False)
    monkeypatch.setenv("BGTUI_CONFIG_DIR", str(tmp_path / "env-config"))
    monkeypatch.setenv("BGTUI_DATA_DIR", str(tmp_path / "env-data"))


@pytest.fixture
def make_app(tmp_path):
    """``make_app(analyzer=None, state=None, theme="bgtui-dark", **kw)``: an app whose settings
    file and data dir are in tmp_path (shared by every app of the test)."""

    def make(analyzer=None, state=None, theme="bgtui-dark", **kw):
        from bgtui.analysis.formats import parse_position

        kw.setdefault("unicode", True)
        if isinstance(state, str):
            state = parse_position(state)
        app = BgTuiApp(
            analyzer or fake(),
            state,
            theme,
            config_path=tmp_path / "config" / "tui.toml",
            data_path=tmp_path / "data",
            **kw,
        )
        app.animation_level = "none"  # no tab-underline or scroll animations to wait for
        return app

    return make


@pytest.fixture
def gates():
    """Register gates here: each is opened when the test ends, whatever happens.

    ``gates.event()`` a closed Event; ``gates.steps()`` a Semaphore(0) (one rollout step per
    release)."""

    class Gates:
        def __init__(self):
            self.all = []

        def event(self):
            g = threading.Event()
            self.all.append(g)
            return g

        def steps(self):
            g = threading.Semaphore(0)
            self.all.append(g)
            return g

        def open_all(self):
            for g in self.all:
                if isinstance(g, threading.Event):
                    g.set()
                else:
                    g.release(10_000)

    g = Gates()
    try:
        yield g
    finally:
        g.open_all()
