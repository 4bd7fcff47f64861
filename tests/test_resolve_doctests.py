"""The examples in kgkit.resolve's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["keys", "config", "index", "scoring", "candidates", "identify", "decisions", "store", "apply", "judge"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"kgkit.resolve.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
