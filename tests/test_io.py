"""kgkit.io's atomic writers: a failed write leaves the old file and no temporary file behind."""

from __future__ import annotations

import pytest

from kgkit.io import atomic_file


def test_a_failed_streaming_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "snapshot.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_file(target, durable=False) as fh:
        fh.write(b"half of the new")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["snapshot.bin"]
    with atomic_file(target) as fh:
        fh.write(b"new")
    assert target.read_bytes() == b"new" and len(list(tmp_path.iterdir())) == 1
