"""Arithmetic expressions over named columns, as written in the dataset registry.

Only numbers, names, ``+ - * / **``, unary minus and the functions of ``FUNCTIONS`` are
allowed, e.g. ``"E_ - prediction"`` or ``"sqrt(uncertainty_total)"``. Names refer to source
columns or to constants read from key-value files (``qhat_95``).

Expressions come from user-supplied files, so :func:`check_expression` bounds them before
anything is evaluated: at most ``MAX_LENGTH`` characters, ``MAX_NODES`` syntax-tree nodes and
``MAX_DEPTH`` levels of nesting, and only the elements above (a function name cannot be used as
a value). Every violation raises ValueError naming the expression and the reason.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FUNCTIONS", "MAX_DEPTH", "MAX_LENGTH", "MAX_NODES", "check_expression", "evaluate",
           "referenced_names"]

MAX_LENGTH = 1000
MAX_NODES = 500
MAX_DEPTH = 100

# Functions and operators by the names of their NumPy ufuncs: the registry checks expressions
# without importing NumPy (0.13 s per fetch job); evaluate imports it.
FUNCTIONS = ("sqrt", "abs", "log", "log10", "exp")

_BINOPS = {
    ast.Add: "add",
    ast.Sub: "subtract",
    ast.Mult: "multiply",
    ast.Div: "divide",
    ast.Pow: "power",
}


def _shown(expr: str) -> str:
    return expr if len(expr) <= 80 else f"{expr[:80]}... ({len(expr)} characters)"


def _unsupported(expr: str, node: ast.AST) -> ValueError:
    return ValueError(
        f"expression '{_shown(expr)}': unsupported element '{_shown(ast.unparse(node))}' (allowed: "
        f"numbers, column names, + - * / **, and {', '.join(FUNCTIONS)}(...))"
    )


def _check_node(expr: str, node: ast.AST) -> None:
    if isinstance(node, ast.Expression):
        return
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _unsupported(expr, node)
        try:
            float(value)
        except OverflowError:
            raise ValueError(f"expression '{_shown(expr)}': number too large") from None
        return
    if isinstance(node, ast.Name):
        if node.id in FUNCTIONS:
            raise ValueError(
                f"expression '{_shown(expr)}': '{node.id}' is a function; call it on a column, "
                f"e.g. {node.id}(x)"
            )
        return
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return
    if isinstance(node, ast.Call):
        if not (isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS):
            raise _unsupported(expr, node)
        if len(node.args) != 1 or node.keywords:
            raise ValueError(
                f"expression '{_shown(expr)}': {node.func.id}(...) takes exactly one argument"
            )
        return
    if isinstance(node, ast.operator | ast.unaryop | ast.expr_context):
        return
    raise _unsupported(expr, node)


def check_expression(expr: str) -> ast.Expression:
    """Parse and check an expression (size, nesting and allowed elements); return its tree.

    Raises ValueError naming the expression and the reason.
    """
    if not isinstance(expr, str) or not expr.strip():
        raise ValueError(f"expression {expr!r} is empty or not text")
    if len(expr) > MAX_LENGTH:
        raise ValueError(
            f"expression '{_shown(expr)}' is too long: {len(expr)} characters, at most "
            f"{MAX_LENGTH} are allowed"
        )
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc) or type(exc).__name__
        raise ValueError(f"expression '{_shown(expr)}' is not valid: {reason}") from None
    # Iterative walk with depths, so deep trees give a clear error instead of RecursionError.
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    n_nodes = 0
    while stack:
        node, depth = stack.pop()
        n_nodes += 1
        if n_nodes > MAX_NODES:
            raise ValueError(
                f"expression '{_shown(expr)}' is too large: more than {MAX_NODES} elements"
            )
        if depth > MAX_DEPTH:
            raise ValueError(
                f"expression '{_shown(expr)}' is nested too deeply: more than {MAX_DEPTH} levels"
            )
        _check_node(expr, node)
        stack.extend((child, depth + 1) for child in _operands(node))
    return tree


def _operands(node: ast.AST) -> list[ast.AST]:
    """Child nodes that are values (a call's function name is not one)."""
    return list(node.args) if isinstance(node, ast.Call) else list(ast.iter_child_nodes(node))


def referenced_names(expr: str) -> list[str]:
    """Names an expression refers to (excluding function names), in order of appearance."""
    found: list[ast.Name] = []
    queue: list[ast.AST] = [check_expression(expr)]
    while queue:
        node = queue.pop()
        if isinstance(node, ast.Name):
            found.append(node)
        queue.extend(_operands(node))
    found.sort(key=lambda n: n.col_offset)
    return list(dict.fromkeys(n.id for n in found))


def evaluate(expr: str, namespace: Mapping[str, np.ndarray | float]) -> np.ndarray:
    """Evaluate ``expr`` with NumPy semantics over the arrays/scalars of ``namespace``.

    Raises ValueError for an invalid expression (:func:`check_expression`) or a name missing
    from ``namespace`` (the message lists the available names).
    """
    import numpy as np

    tree = check_expression(expr)

    def ev(node: ast.AST) -> np.ndarray | float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            return float(node.value)
        if isinstance(node, ast.Name):
            if node.id not in namespace:
                raise ValueError(
                    f"expression '{_shown(expr)}': unknown name '{node.id}' (available: "
                    f"{', '.join(sorted(namespace)) or 'none'})"
                )
            return namespace[node.id]
        if isinstance(node, ast.BinOp):
            return getattr(np, _BINOPS[type(node.op)])(ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp):
            value = ev(node.operand)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return getattr(np, node.func.id)(ev(node.args[0]))
        raise _unsupported(expr, node)  # unreachable after check_expression

    with np.errstate(all="ignore"):
        return np.asarray(ev(tree), dtype=float)
