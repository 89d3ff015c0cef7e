"""Packaging hook: ship the top-level ``weights/`` and ``themes/`` inside the wheel.

The project keeps weights and themes at the top of the repository (where people look for
them); a wheel only carries the package, so ``build_py`` copies them to ``bgtui/data/``, where
``bgtui.analysis.weights.weights_dirs`` and the theme loader look first.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithData(build_py):
    def run(self):
        super().run()
        root = Path(__file__).resolve().parent
        for folder, pattern in (("weights", "*.npz"), ("themes", "*.toml")):
            dest = Path(self.build_lib) / "bgtui" / "data" / folder
            dest.mkdir(parents=True, exist_ok=True)
            for f in sorted((root / folder).glob(pattern)):
                shutil.copy2(f, dest / f.name)


setup(cmdclass={"build_py": BuildWithData})
