"""Shared matplotlib style for every uqval figure.

Consistent fonts and colours (uncalibrated red, calibrated blue as in the primer paper),
vector PDF plus 150-dpi PNG, written atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib
from cycler import cycler

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from uqval._internal.atomic import atomic_path  # noqa: E402

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

UNCALIBRATED = "#d62728"
CALIBRATED = "#1f77b4"
REFERENCE = "0.2"
SHADE = "#f2b8b5"
PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]

RC: dict[RcKeyType, Any] = {
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.color": "0.9",
    "grid.linewidth": 0.6,
    "axes.prop_cycle": cycler(color=PALETTE),
    "lines.linewidth": 1.2,
    "lines.markersize": 4,
    "pdf.fonttype": 42,
    "svg.hashsalt": "uqval",
    "path.simplify": True,
}


matplotlib.rcParams.update(RC)


def literal_text(text: str) -> str:
    r"""``text`` as matplotlib should show it, character for character: a user's column name,
    unit or model name such as ``price $ (US$)`` would otherwise be read as mathtext between
    its two ``$`` (italics, the ``$`` gone).

    >>> print(literal_text("price $ (US$)"))
    price \$ (US\$)
    """
    return text.replace("$", r"\$")


def figure(nrows: int = 1, ncols: int = 1, width: float = 3.4, height: float = 3.0, **kwargs):
    """Create a figure of ``ncols x nrows`` panels of ``width x height`` inches each."""
    return plt.subplots(
        nrows, ncols, figsize=(width * ncols, height * nrows), layout="constrained", **kwargs
    )


def panel_grid(n: int, ncols: int = 3, width: float = 2.6, height: float = 2.2):
    """Figure with ``n`` panels laid out row-wise on ``ncols`` columns; unused cells hidden.

    Returns the figure and the list of the n used axes (then the hidden ones).
    """
    nrows = -(-n // ncols)
    fig, axes = figure(nrows, ncols, width=width, height=height, squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def panel_label(ax, label: str) -> None:
    """Put a panel label such as '(a)' in the upper-left corner, outside the data."""
    ax.set_title(label, loc="left", fontweight="bold")


def save(fig: Figure, png: str | Path, pdf: str | Path | None = None) -> None:
    """Write the figure as a 150-dpi PNG and a vector PDF (atomically), then close it.

    PDF metadata carry no creation date, so identical figures give identical files.
    """
    with atomic_path(png, suffix=".png") as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": None})
    if pdf is not None:
        with atomic_path(pdf, suffix=".pdf") as tmp:
            fig.savefig(
                tmp, format="pdf", metadata={"CreationDate": None, "Creator": None, "Producer": None}
            )
    plt.close(fig)
