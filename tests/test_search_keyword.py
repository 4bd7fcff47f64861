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
