"""The keyword channel's ranking rules (kgkit.stages.search.bm25), seen through SearchIndex.search as a user
sees them: which item comes first."""

from __future__ import annotations

from kgkit.stages.search import SearchIndex, SearchItem


def chunk(cid: str, title: str, body: str) -> SearchItem:
    return SearchItem(id=cid, kind="chunk", title=title, body=body, document_id=cid)


def common_rows(n: int = 40) -> list[SearchItem]:
    """Filler rows: a quarter of them say "open file", so those are common words (low idf)."""
    return [chunk(f"filler-{i}", f"mod{i}", ("open the file, " if i % 4 == 0 else "") + f"then read part {i}")
            for i in range(n)]


def test_a_row_with_the_querys_rare_word_beats_one_with_its_common_words():
    # counting matched terms (2 of 3 against 1 of 3) put "common" first; weighing them by idf does not
    index = SearchIndex()
    index.add([*common_rows(), chunk("common", "", "open file"), chunk("rare", "", "pidfd: a handle to the process")])
    assert index.search("pidfd open file", limit=3, channels=("keyword",))["id"].tolist()[0] == "rare"


def test_a_row_with_every_query_word_still_ranks_first():
    index = SearchIndex()
    index.add([*common_rows(), chunk("rare", "", "pidfd pidfd pidfd handle"), chunk("all", "", "pidfd open file")])
    assert index.search("pidfd open file", limit=3, channels=("keyword",))["id"].tolist()[0] == "all"


def test_a_word_repeated_in_a_title_counts_once():
    # two sibling methods with the same docstring: the repeated "socket" of socket.socket.detach must not lift
    # it above the one whose text is shorter
    text = "Close the socket object without closing the underlying file descriptor."
    index = SearchIndex()
    index.add([chunk("socket.socket.detach", "socket.socket.detach", f"detach() -> fd {text}"),
               chunk("socket.SocketType.detach", "socket.SocketType.detach", f"detach() {text}")])
    hits = index.search("socket underlying without", channels=("keyword",))
    assert hits["id"].tolist() == ["socket.SocketType.detach", "socket.socket.detach"]


def test_an_index_grown_batch_by_batch_scores_like_one_built_at_once():
    # small batches stay in the unsorted tail, larger ones are merged into the inverted view (words first seen in
    # a later batch included), rows are retired in between, and queries run at every stage: every word and a few
    # multi-word queries give the same rows, scores, matched counts, name candidates and lookup answers as an index
    # built in one go
    import random

    import numpy as np

    from kgkit.stages.search.bm25 import KeywordIndex

    rnd = random.Random(16)
    rows = []
    for i in range(1500):
        vocab = [f"w{j}" for j in range(20 + i // 10)]  # the vocabulary grows: later rows bring new words
        rows.append((" ".join(rnd.sample(vocab, 2)), " ".join(rnd.choices(vocab, k=rnd.randint(3, 30)))))
    retired = rnd.sample(range(1500), 100)
    queries = [[f"w{j}"] for j in range(170)] + [[f"w{rnd.randrange(170)}" for _ in range(4)] for _ in range(40)]
    grown, at = KeywordIndex(), 0
    for size in [7, 300, 3, 40, 600, 1, 200, 299, 50]:
        grown.search(rnd.choice(queries))  # a query between writes merges the tail when it is long enough
        grown.add_many(rows[at : at + size])
        at += size
        for row in retired:
            if row < at:
                grown.retire(row)
    assert at == len(rows) and grown._sorted < grown.e_term.n  # the last batch is still an unsorted tail
    whole = KeywordIndex()
    whole.add_many(rows)
    for row in retired:
        whole.retire(row)
    for terms in queries:
        a, b = grown.search(terms, limit=50), whole.search(terms, limit=50)
        assert all(np.array_equal(x, y) for x, y in zip(a, b)), terms
        assert np.array_equal(grown.title_rows(terms), whole.title_rows(terms))
        assert grown.lookup_possible(terms, budget=10**6) == whole.lookup_possible(terms, budget=10**6)
