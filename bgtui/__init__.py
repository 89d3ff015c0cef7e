"""bgtui: a backgammon position analyser for the terminal."""

__version__ = "0.1.0"
