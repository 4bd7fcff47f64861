import numpy as np
import pytest

from kgkit.core.fingerprint import fingerprint
from kgkit.core.records import Document


def test_mappings_ignore_order_but_not_content():
    assert fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})
    assert fingerprint({"a": 1}) != fingerprint({"a": 2})


def test_types_are_part_of_the_fingerprint():
    assert fingerprint(1) != fingerprint("1") != fingerprint(1.0)
    assert fingerprint([1, 2]) != fingerprint([2, 1])
    assert fingerprint({1, 2}) == fingerprint({2, 1})
    assert fingerprint(("a", "bc")) != fingerprint(("ab", "c"))


def test_arrays_by_dtype_shape_and_bytes():
    a = np.arange(6, dtype=np.int64)
    assert fingerprint(a) == fingerprint(np.arange(6, dtype=np.int64))
    assert fingerprint(a) != fingerprint(a.astype(np.int32))
    assert fingerprint(a) != fingerprint(a.reshape(2, 3))


def test_records_by_content():
    d1 = Document.from_text("x", path="a.txt")
    assert fingerprint(d1) == fingerprint(Document.from_text("x", path="a.txt"))
    assert fingerprint(d1) != fingerprint(Document.from_text("y", path="a.txt"))


def test_objects_with_identity_and_unknown_objects():
    class Ext:
        id = "ext:1"

    class Ext2:
        id = "ext:2"

    assert fingerprint(Ext()) != fingerprint(Ext2())
    with pytest.raises(TypeError, match="cannot fingerprint"):
        fingerprint(object())


def test_surrogate_escaped_strings_fingerprint_without_error():
    """A file name that is not UTF-8 reaches Python with surrogate escapes (os.fsdecode): hashed, not refused."""
    import os

    from kgkit.core.records import RawFile

    name = os.fsdecode(b"caf\xe9.txt")
    assert fingerprint(name) == fingerprint(os.fsdecode(b"caf\xe9.txt")) != fingerprint(os.fsdecode(b"caf\xe8.txt"))
    assert fingerprint(name) != fingerprint("café.txt") and fingerprint("\udcc3\udca9") != fingerprint("é")
    assert fingerprint(RawFile(path=name, data=b"x", size=1)) != fingerprint(RawFile(path="caf.txt", data=b"x", size=1))
    assert fingerprint("plain") == fingerprint("plain")  # valid strings hash as before (plain UTF-8)
