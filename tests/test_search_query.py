"""A question embedded beside the keyword channel (kgkit.stages.search.query): same hits as one stage after the
other, the embedding running while the keyword channel does, lookups never embedded, a stopped embedding
cancelled, and the lookup pre-check never wrong when it answers."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from kgkit.stages.embed import HashingEmbedder
from kgkit.stages.search import SearchConfig, SearchIndex, SearchItem
from kgkit.stages.search.bm25 import KeywordIndex
from kgkit.stages.search.query import beside
from kgkit.stages.search.text import query_terms

WORDS = ["river", "bank", "money", "loan", "water", "fish", "boat", "bridge", "city", "music", "song", "band", "light",
         "night", "star", "road", "car", "train", "school", "book", "paper", "ink", "storm", "rain", "wind", "snow"]


class Job:
    """An embedding prepared as LeanMiniLM.query_job prepares one: computed by the hashing embedder on a thread of
    its own (as onnxruntime's run_async does), each step logged."""

    def __init__(self, embedder: HashingEmbedder, text: str, log: list) -> None:
        self.embedder, self.text, self.log, self.cancelled = embedder, text, log, False
        self.thread: threading.Thread | None = None
        self.vector = None

    def start(self) -> None:
        self.log.append(("start", self.text))

        def work():
            self.vector = HashingEmbedder.__call__(self.embedder, [self.text])[0]

        self.thread = threading.Thread(target=work)
        self.thread.start()

    def result(self):
        self.thread.join()
        self.log.append(("result", self.text))
        return None if self.cancelled else self.vector

    def cancel(self) -> None:
        self.log.append(("cancel", self.text))
        self.cancelled = True


class Overlapping(HashingEmbedder):
    """A hashing embedder with LeanMiniLM's query_job: what the index embeds beside the keyword channel."""

    def __init__(self) -> None:
        super().__init__(dim=64)
        self.log: list = []

    def query_job(self, text: str) -> Job:
        return Job(self, text, self.log)


def _items(n: int, seed: int = 0) -> list[SearchItem]:
    rng = np.random.default_rng(seed)
    return [SearchItem(id=f"c{i}", kind="chunk", title=" ".join(rng.choice(WORDS, 2)),
                       body=" ".join(rng.choice(WORDS, 8)), document_id=f"d{i % 7}") for i in range(n)]


def test_a_question_is_embedded_beside_the_keyword_channel_with_the_same_hits(monkeypatch):
    items = _items(300)
    overlapped = SearchIndex(embedder=Overlapping(), config=SearchConfig(query_cache=0))
    plain = SearchIndex(embedder=HashingEmbedder(dim=64), config=SearchConfig(query_cache=0))
    for index in (overlapped, plain):
        index.add(items)
    keyword = KeywordIndex.search
    log = overlapped.embedder.log

    def search(self, *args, **kwargs):
        if self is overlapped.keyword:
            log.append(("keyword", None))
        return keyword(self, *args, **kwargs)

    monkeypatch.setattr(KeywordIndex, "search", search)
    rng = np.random.default_rng(1)
    questions = [" ".join(rng.choice(WORDS, 5)) + " zebra" for _ in range(20)]  # "zebra": no row has every word
    lookups = [items[i].body.split()[0] + " " + items[i].body.split()[1] for i in range(0, 300, 30)]
    for query in questions + lookups:
        log.clear()
        kind = "chunk" if len(query) % 2 else None
        document = ["d1", "d2", "d3"] if "a" in query else None
        got = overlapped.search(query, limit=8, kind=kind, document=document)
        want = plain.search(query, limit=8, kind=kind, document=document)
        assert got.equals(want), query
        assert got.attrs["weights"] == want.attrs["weights"] and got.attrs["lookup"] == want.attrs["lookup"]
        if query in questions:  # started, then the keyword channel while it runs, then its vector
            assert log == [("start", query), ("keyword", None), ("result", query)], query
            assert "keyword+embed" in got.attrs["timings_ms"] and "dense" in got.attrs["channels"]
        else:  # a lookup: never embedded
            assert log == [("keyword", None)], query
            assert "keyword+embed" not in got.attrs["timings_ms"]
    config = SearchConfig(query_cache=0, overlap=False)
    overlapped.config = config
    log.clear()
    assert overlapped.search(questions[0]).equals(plain.search(questions[0]))
    assert log == [("keyword", None)]  # one after the other: through query(), no job


def test_a_kept_query_vector_is_not_embedded_again():
    index = SearchIndex(embedder=Overlapping(), config=SearchConfig(query_cache=4))
    index.add(_items(50))
    first = index.search("river zebra song", limit=6)
    again = index.search("river zebra song", limit=5, offset=1)
    assert again["id"].tolist() == first["id"].tolist()[1:]
    assert index.embedder.log == [("start", "river zebra song"), ("result", "river zebra song")]  # once
    assert "keyword+embed" not in again.attrs["timings_ms"]


def test_beside_cancels_the_embedding_when_the_words_answer():
    log: list = []
    found, vector = beside(Job(HashingEmbedder(dim=8), "q", log), lambda: "lookup", stop=lambda out: out == "lookup")
    assert (found, vector) == ("lookup", None) and log == [("start", "q"), ("cancel", "q")]
    found, vector = beside(Job(HashingEmbedder(dim=8), "a b", []), lambda: "question", stop=lambda out: False)
    assert found == "question" and vector.shape == (8,)
    failing = Job(HashingEmbedder(dim=8), "x", log := [])
    with pytest.raises(ZeroDivisionError):
        beside(failing, lambda: 1 / 0, stop=lambda out: False)
    assert log[-1] == ("cancel", "x")  # the keyword channel failed: the embedding is not left running

    class Broken(Job):
        def result(self):
            return None

    with pytest.raises(RuntimeError, match="cancelled"):
        beside(Broken(HashingEmbedder(dim=8), "x", []), lambda: "question", stop=lambda out: False)


def test_lookup_possible_never_says_no_to_a_lookup():
    items = _items(400, seed=3)
    index = SearchIndex()
    index.add(items)
    index.remove([f"c{i}" for i in range(0, 400, 3)])  # retired rows have no say
    rng = np.random.default_rng(5)
    alive = index.keyword.alive.view()
    said = {True: 0, False: 0, None: 0}
    for n in range(300):
        terms = query_terms(" ".join(rng.choice(WORDS, 1 + n % 4)))
        mask = index.mask(index_filters(n))
        answer = index.keyword.lookup_possible(terms, mask=mask, budget=4000 if n % 5 else 10)
        said[answer] += 1
        has_all = any(alive[r] and mask[r] and set(terms) <= set(query_terms(f"{i.title} {i.body}", max_terms=99))
                      for r, i in enumerate(index.items))
        if answer is not None:
            assert answer == has_all, terms
    assert said[True] and said[False] and said[None]
    assert index.keyword.lookup_possible(["unknownword"]) is False


def index_filters(n: int):
    from kgkit.stages.search import Filters

    return Filters.make(document=None if n % 2 else ["d1", "d4"])
