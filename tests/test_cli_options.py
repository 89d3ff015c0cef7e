"""Numeric options: every option of every command that takes a number is range-checked by its
argparse type (bgtui.analysis.options), and a bad value of a ``bgtui train`` option is one line
on standard error and exit status 2, before anything runs."""

import argparse

import pytest

from bgtui.cli import build_parser, main


def _options(parser, path=()):
    """(subcommand path, action) for every option of ``parser`` and its subcommands."""
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                yield from _options(sub, path + (name,))
        elif a.option_strings:
            yield path, a


def _checked(action) -> bool:
    return getattr(action.type, "__qualname__", "").split(".")[0] in ("whole", "real")


def test_every_option_that_takes_a_number_is_range_checked():
    numeric = [
        (path, a)
        for path, a in _options(build_parser())
        if a.type in (int, float) or type(a.default) in (int, float)
    ]
    assert len(numeric) > 30
    unchecked = [(" ".join(path), a.option_strings[0]) for path, a in numeric if not _checked(a)]
    assert unchecked == []


TRAIN_NUMERIC = sorted(
    a.option_strings[0]
    for path, a in _options(build_parser())
    if path == ("train",) and _checked(a)
)
#: values out of every option's range: not finite, negative, too large, not ASCII digits
BAD = ["nan", "inf", "-inf", "-1", "1e999", "1e13", "99999999999999999999999", "\uff13", "0x10", ""]


def test_train_has_its_numeric_options_checked():
    assert {
        "--games",
        "--alpha",
        "--lambda",
        "--positions",
        "--seed",
        "--workers",
        "--hidden",
        "--explore",
        "--epochs",
        "--save-every",
    } <= set(TRAIN_NUMERIC)


@pytest.mark.parametrize("flag", TRAIN_NUMERIC)
def test_a_bad_train_option_value_is_one_line_and_exit_status_2(capsys, tmp_path, flag):
    ck = tmp_path / "never-written.npz"
    for bad in BAD:
        with pytest.raises(SystemExit) as e:
            main(["train", "td", "--checkpoint", str(ck), f"{flag}={bad}"])
        err = capsys.readouterr().err
        assert e.value.code == 2, (flag, bad)
        assert err.count("\n") == 1 and "Traceback" not in err, (flag, bad, err)
        assert err.startswith(f"bgtui train: error: argument {flag}: must be a "), (flag, err)
    assert not ck.exists()


@pytest.mark.parametrize(
    "flag, value, message",
    [
        ("--children", "1.5", "whole number from 0 to 1000"),
        ("--explore", "1.01", "finite number from 0 to 1"),
        ("--lambda", "-0.1", "finite number from 0 to 1"),
        ("--alpha", "0", "above 0 and at most 10"),
        ("--workers", "0", "whole number from 1 to 1024"),
        ("--target-ply", "4", "whole number from 0 to 3"),
    ],
)
def test_train_option_ranges(capsys, flag, value, message):
    with pytest.raises(SystemExit) as e:
        main(["train", "td", "--checkpoint", "x.npz", f"{flag}={value}"])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_train_options_accept_the_ends_of_their_ranges():
    args = build_parser().parse_args(
        [
            "train",
            "td",
            "--checkpoint",
            "x.npz",
            "--explore",
            "1",
            "--lambda",
            "0",
            "--alpha",
            "10",
            "--workers",
            "1024",
            "--target-ply",
            "0",
            "--seed",
            str(2**63 - 1),
            "--games",
            "1000000000000",
        ]
    )
    assert (args.explore, args.lam, args.alpha, args.workers, args.target_ply) == (
        1.0,
        0.0,
        10.0,
        1024,
        0,
    )
    assert args.seed == 2**63 - 1 and args.games == 10**12
