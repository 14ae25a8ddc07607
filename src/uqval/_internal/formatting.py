"""Numbers as text: the formatters of every table, sentence and action.

A neutral low module: the engines (advice, judgement) and the report both write numbers
with these three functions, so an interval reads the same in ``advice.csv``, the summary
and the page.
"""

from __future__ import annotations

import math

__all__ = ["fmt", "fmt_cut", "fmt_interval", "fmt_range", "fmt_span", "fmt_value"]


def fmt(x: float, digits: int = 3) -> str:
    """A number with ``digits`` significant digits, without exponent for 1e-3 <= abs(x) < 1e5."""
    if not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e5:
        decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
        return f"{x:.{decimals}f}"
    return f"{x:.{digits}g}"


def fmt_interval(value: float, low: float, high: float) -> str:
    """"value [low, high]" with 3 significant digits, or more (up to 6) until the three
    numbers read apart: a narrow interval never prints as "1.03 [1.03, 1.03]".

    >>> fmt_interval(1.0312, 1.0251, 1.0374), fmt_interval(1.4, 1.31, 1.5)
    ('1.031 [1.025, 1.037]', '1.40 [1.31, 1.50]')
    """
    for digits in range(3, 7):
        texts = [fmt(value, digits), fmt(low, digits), fmt(high, digits)]
        if len(set(texts)) == 3 or not (low < value < high):
            break
    return f"{texts[0]} [{texts[1]}, {texts[2]}]"


def fmt_value(x: float) -> str:
    """One value of a variable, exactly enough to find its rows: up to 7 significant digits,
    no trailing zeros (a range that is one tied value, e.g. a discrete feature).

    >>> fmt_value(2.0), fmt_value(2.4810413), fmt_value(-0.0)
    ('2', '2.481041', '0')
    """
    if not math.isfinite(x):
        return "n/a"
    return "0" if x == 0 else f"{x:.7g}"


def fmt_range(low: float, high: float, span: float) -> str:
    """"low to high" with the decimals that give 3 significant digits of ``span`` (the
    variable's whole range), so both ends read alike: 0.00 to 0.80, 250 to 267; a range of
    one value is that value (``fmt_value``), never "2.46 to 2.46"."""
    if low == high:
        return fmt_value(low)
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{fmt(low)} to {fmt(high)}"
    if not (math.isfinite(span) and span > 0) or max(abs(low), abs(high)) >= 1e5:
        return f"{fmt(low)} to {fmt(high)}"
    decimals = max(0, 2 - math.floor(math.log10(span)))
    if decimals > 9:  # a tiny unit (1e-300): exponent notation
        return f"{fmt(low)} to {fmt(high)}"

    def end(x: float, decimals: int) -> str:
        text = f"{x:.{decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0.0 else text  # no "-0.00"

    # never two ends that read alike: add decimals until they differ (at most 6 more)
    for extra in range(7):
        lo, hi = end(low, decimals + extra), end(high, decimals + extra)
        if lo != hi:
            break
    return f"{lo} to {hi}"


def fmt_span(name: str, low: float, high: float, span: float) -> str:
    """A variable's range as a phrase: "x from 0.00 to 0.80", or "x = 2" for one value.

    >>> fmt_span("ram", 2.0, 2.0, 14.0), fmt_span("T", 250.3, 267.2, 150.0)
    ('ram = 2', 'T from 250 to 267')
    """
    if low == high:
        return f"{name} = {fmt_value(low)}"
    return f"{name} from {fmt_range(low, high, span)}"


def fmt_cut(cut: float, below: float, above: float, span: float) -> str:
    """A threshold between two neighbouring values of a variable (``below`` <= ``cut`` <
    ``above``), with the decimals of 3 significant digits of ``span`` or more, until the
    printed number still separates them: "x <= 2.46" must not also hold for 2.4632 when the
    cut lies between 2.4616 and 2.4632.

    >>> fmt_cut(2.46245, 2.461635, 2.463023, 1.9), fmt_cut(0.55, 0.5, 0.6, 1.0)
    ('2.462', '0.55')
    """
    if not math.isfinite(cut) or not below < above:  # the ends may be -inf or inf
        return fmt(cut)
    decimals = max(0, 2 - math.floor(math.log10(span))) if math.isfinite(span) and span > 0 else 3
    text = f"{cut:.{decimals}f}"
    for extra in range(1, 13):
        if below <= float(text) < above:
            break
        text = f"{cut:.{decimals + extra}f}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text
