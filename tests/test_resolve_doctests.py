"""The examples in kgkit.stages.resolve's docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["keys", "guards", "learned", "prior", "config", "name_index", "scoring", "candidates", "bulk", "name_rules", "identify", "decisions", "apply", "judge", "regroup"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"kgkit.stages.resolve.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
