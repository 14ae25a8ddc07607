"""Arithmetic expressions over named columns, as written in the dataset registry.

Only numbers, names, ``+ - * / **``, unary minus and the functions of ``FUNCTIONS`` are
allowed, e.g. ``"E_ - prediction"`` or ``"sqrt(uncertainty_total)"``. Names refer to source
columns or to constants read from key-value files (``qhat_95``).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

import numpy as np

FUNCTIONS = {
    "sqrt": np.sqrt,
    "abs": np.abs,
    "log": np.log,
    "log10": np.log10,
    "exp": np.exp,
}

_BINOPS = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.divide,
    ast.Pow: np.power,
}


def _parse(expr: str) -> ast.Expression:
    try:
        return ast.parse(expr, mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"expression '{expr}' is not valid: {exc.msg}") from None


def referenced_names(expr: str) -> list[str]:
    """Names an expression refers to (excluding function names), in order of appearance."""
    names: list[str] = []
    for node in ast.walk(_parse(expr)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            continue
        if isinstance(node, ast.Name) and node.id not in FUNCTIONS and node.id not in names:
            names.append(node.id)
    return names


def evaluate(expr: str, namespace: Mapping[str, np.ndarray | float]) -> np.ndarray:
    """Evaluate ``expr`` with NumPy semantics over the arrays/scalars of ``namespace``."""

    def ev(node: ast.AST) -> np.ndarray | float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in namespace:
                raise KeyError(node.id)
            return namespace[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            value = ev(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FUNCTIONS
            and len(node.args) == 1
            and not node.keywords
        ):
            return FUNCTIONS[node.func.id](ev(node.args[0]))
        raise ValueError(
            f"expression '{expr}': unsupported element '{ast.unparse(node)}' (allowed: numbers, "
            f"column names, + - * / **, and {', '.join(FUNCTIONS)})"
        )

    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(ev(_parse(expr)), dtype=float)
