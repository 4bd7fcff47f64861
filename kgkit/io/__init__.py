"""The I/O layer: every file kgkit reads or writes goes through here; stages never touch files.

`kgkit.io.workspace.Workspace` owns a workspace's files; the functions below are the plain file helpers
(atomic writes, JSON, corpus reading, domains, graphs) it and the importers/exports are built on.
"""

from kgkit.io.files import (
    BUNDLED_DOMAINS,
    atomic_file,
    atomic_write_bytes,
    atomic_write_text,
    bundled_domains,
    dumps_json,
    load_domain,
    load_graph,
    read_corpus,
    read_file,
    read_json,
    read_jsonl,
    save_domain,
    save_graph,
    write_json,
    write_jsonl,
)

__all__ = ["BUNDLED_DOMAINS", "atomic_file", "atomic_write_bytes", "atomic_write_text", "bundled_domains",
           "dumps_json", "load_domain", "load_graph", "read_corpus", "read_file", "read_json", "read_jsonl",
           "save_domain", "save_graph", "write_json", "write_jsonl"]
