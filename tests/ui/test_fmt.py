"""Standard errors keep a meaning however small they are (conventions: ±0.004, 0.4%)."""

from bgtui.ui.fmt import pct_se, se


def test_usual_standard_errors_keep_the_usual_decimals():
    assert se(0.0043) == "±0.004" and se(-0.0123) == "±0.012"
    assert pct_se(0.0043) == "±0.4%" and pct_se(0.0123) == "±1.2%"


def test_standard_errors_that_would_round_to_zero_get_two_significant_digits():
    assert se(0.00043) == "±0.00043"
    assert se(0.0000431) == "±0.000043"
    assert pct_se(0.00043) == "±0.043%"  # 0.043 percentage points, not "±0.0%"
    assert pct_se(0.0000049) == "±0.00049%"


def test_only_a_true_zero_reads_zero():
    assert se(0.0) == "±0.000" and pct_se(0.0) == "±0.0%"
    assert se(None) == "" and pct_se(None) == ""


def test_no_standard_error_yet_reads_empty():
    # a rollout's rows before their second trial have a NaN standard error
    nan = float("nan")
    assert se(nan) == "" and pct_se(nan) == ""
    assert se(float("inf")) == "" and pct_se(float("inf")) == ""


def test_match_winning_chance_standard_errors_read_in_percent_with_two_decimals():
    from bgtui.analysis.numbers import mwc_se

    assert mwc_se(0.0045) == "±0.45%" and mwc_se(-0.0123) == "±1.23%"
    assert mwc_se(0.000043) == "±0.0043%"
    assert mwc_se(float("nan")) == "" and mwc_se(None) == ""
