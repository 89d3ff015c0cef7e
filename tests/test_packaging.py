"""The installed package (from a wheel, not the checkout) finds and loads the shipped weights
and match equity table."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pip(*args):
    """Runs pip with these arguments in this interpreter and asserts that it succeeded."""
    r = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_wheel_ships_weights_and_an_installed_copy_loads_them(tmp_path):
    wheel_dir = tmp_path / "wheel"
    _pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheel_dir), str(ROOT))
    wheel = next(wheel_dir.glob("bgtui-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "bgtui/data/weights/bgtui-0.npz" in names
    target = tmp_path / "site"
    _pip("install", "--no-deps", "-q", "--target", str(target), str(wheel))
    code = (
        "import bgtui, bgtui.analysis.weights as w; ev, meta = w.load_weights(); "
        "print(bgtui.__file__); print(meta['path'])"
    )
    env = dict(os.environ, PYTHONPATH=str(target))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    pkg, path = out.stdout.split()
    assert pkg.startswith(str(target)) and path.startswith(str(target))
    # the match equity table is package data too: the installed copy reads its own
    assert "bgtui/data/met/kazaross-xg2.xml" in names
    code = (
        "import bgtui.analysis.met as m; t = m.get_met(); "
        "print(m.DEFAULT_MET); print(t.length, t.pre[0, 1])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    path, length, entry = out.stdout.split()
    assert path.startswith(str(target)) and length == "25" and entry == "0.67736"
