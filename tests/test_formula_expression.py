import numpy as np
import pytest

from uqval.pipeline.expression import evaluate, referenced_names
from uqval.pipeline.formula import heteroatom_fraction, molecular_mass, parse_formula


def test_parse_formula_counts_two_letter_symbols():
    assert parse_formula("C2H5ClO") == {"C": 2, "H": 5, "Cl": 1, "O": 1}


@pytest.mark.parametrize("bad", ["", "c2h6", "C2H6+", "(CH3)2"])
def test_parse_formula_rejects_non_flat_formulas(bad):
    with pytest.raises(ValueError):
        parse_formula(bad)


def test_mass_and_heteroatom_fraction_of_water_and_benzene():
    assert molecular_mass(parse_formula("H2O")) == pytest.approx(2 * 1.008 + 15.999)
    assert heteroatom_fraction(parse_formula("H2O")) == pytest.approx(1 / 3)
    assert heteroatom_fraction(parse_formula("C6H6")) == 0.0


def test_expression_arithmetic_and_functions():
    ns = {"a": np.array([4.0, 9.0]), "b": np.array([1.0, 2.0]), "k": 2.0}
    np.testing.assert_allclose(evaluate("sqrt(a) - k * b ** 2", ns), [0.0, -5.0])
    np.testing.assert_allclose(evaluate("-abs(b - a) / 1e1", ns), [-0.3, -0.7])
    assert referenced_names("sqrt(a) - k * b") == ["a", "k", "b"]


@pytest.mark.parametrize("expr", ["a.real", "__import__('os')", "a[0]", "open(a)", "a if b else k", "True",
                                  "1j", "sqrt", "sqrt(a, b)", "missing"])
def test_expression_rejects_anything_but_arithmetic(expr):
    with pytest.raises(ValueError, match="expression"):
        evaluate(expr, {"a": np.ones(2), "b": np.ones(2), "k": 1.0})


def test_function_names_are_not_referenced_names():
    assert referenced_names("log(sqrt(x)) + abs(y)") == ["x", "y"]


@pytest.mark.parametrize("bad", ["C0", "H0O0"])
def test_formula_without_atoms_is_refused(bad):
    with pytest.raises(ValueError, match="no atoms"):
        heteroatom_fraction(parse_formula(bad))
