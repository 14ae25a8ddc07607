"""Figures: one shared matplotlib style (style.py) and one module per paper."""
