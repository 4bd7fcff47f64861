"""Shared test setup: offline everywhere, one torch thread, small fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_CORPUS = ROOT / "tests" / "fixtures" / "corpus"
DEMO_CORPUS = ROOT / "data" / "demo" / "sotu_1934_1946"


@pytest.fixture(scope="session")
def offline_extractor():
    """One real offline extractor per test session (spaCy loads once)."""
    from kgkit.extractors.offline import OfflineExtractor

    return OfflineExtractor()


@pytest.fixture(scope="session")
def general_domain():
    from kgkit.io import load_domain

    return load_domain("general")


@pytest.fixture
def corpus_copy(tmp_path: Path) -> Path:
    """A writable copy of the fixture corpus."""
    import shutil

    dest = tmp_path / "corpus"
    shutil.copytree(FIXTURE_CORPUS, dest)
    return dest
