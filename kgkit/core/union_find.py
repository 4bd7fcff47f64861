"""One union-find (disjoint sets) for kgkit: transitive merges, groups of entities joined through decisions.

Like networkx's `networkx.utils.UnionFind`, without importing networkx (about 0.3 s) on paths that need only
this (`kgkit resolve`, `kgkit review`). Items are added on first use; `find` halves paths as it goes.

>>> uf = UnionFind(["a", "b", "c", "d"])
>>> uf.union("a", "b"); uf.union("b", "c")
>>> uf.find("a") == uf.find("c") != uf.find("d"), uf.find("new") == "new"
(True, True)
>>> uf.groups()
[['a', 'b', 'c'], ['d'], ['new']]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

__all__ = ["UnionFind"]

T = TypeVar("T", bound=Hashable)


class UnionFind(Generic[T]):
    """Disjoint sets of items: `union(a, b)` joins the sets of a and b, `find(x)` names x's set by one member."""

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._parent: dict[T, T] = {item: item for item in items}

    def find(self, item: T) -> T:
        """The member that names `item`'s set (an item seen for the first time is a set of its own)."""
        parent = self._parent
        parent.setdefault(item, item)
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, a: T, b: T) -> None:
        """Join the sets of `a` and `b` (a's set is named by b's from then on)."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[ra] = rb

    def groups(self) -> list[list[T]]:
        """Every set, its members in the order they were first seen, sets in the order of their first member."""
        members: dict[T, list[T]] = {}
        for item in list(self._parent):
            members.setdefault(self.find(item), []).append(item)
        return list(members.values())
