"""Reading a corpus and extracting it through the cache: the two compositions every extraction workflow uses.

>>> import tempfile, pathlib
>>> from kgkit.io.cache import Cache
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> _ = (root / "a.txt").write_text("Ada met Charles.")
>>> documents, errors = load_corpus(root, cache=Cache(root / ".cache"))
>>> [d.path for d in documents], errors
(['a.txt'], [])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from kgkit import io
from kgkit.core.constants import DEFAULT_MAX_BYTES, MAX_CHUNK_CHARS, OFFLINE_BATCH_SIZE, OVERLAP_CHARS
from kgkit.core.domain import Domain
from kgkit.core.executor import Executor
from kgkit.core.records import Chunk, ChunkExtraction, Document, DocumentError, DocumentExtraction
from kgkit.io.cache import Cache
from kgkit.stages.chunk import chunk_document
from kgkit.stages.extract import Extractor, capabilities, extract_texts, locate, merge_document
from kgkit.stages.furniture import strip_furniture
from kgkit.stages.load import load_files

__all__ = ["Progress", "default_extractor", "extract_documents", "load_corpus"]

Progress = Callable[[str, int, int], None]
"""A progress callback: (stage, done, total)."""


def default_extractor() -> Extractor:
    """The offline extractor (spaCy small English model + dependency rules); loads spaCy on first use."""
    from kgkit.extractors.offline import OfflineExtractor

    return OfflineExtractor()


def load_corpus(
    corpus: str | Path, *, cache: Cache, max_bytes: int = DEFAULT_MAX_BYTES, exclude: Sequence[str | Path] = (),
    furniture: bool = True,
) -> tuple[list[Document], list[DocumentError]]:
    """Read a folder (io) and load every file through the cache: (documents, per-file errors). Folders in
    `exclude` (a workspace inside its own corpus) are not read. Page furniture and boilerplate (Project
    Gutenberg header and licence, capitals headings, page numbers, contents) are blanked out of each document's
    text unless `furniture` is False (kgkit.stages.furniture: offsets unchanged, removed spans in metadata),
    each document's furniture search through the cache too, so a warm run, an add or an index refresh does not
    search an unchanged document again."""
    raws = io.read_corpus(corpus, max_bytes=max_bytes, exclude=exclude)
    loaded = cache.map(load_files, raws, batch_size=64, max_bytes=max_bytes)
    documents = [d for d in loaded if isinstance(d, Document)]
    if furniture:
        documents = [cache.run(strip_furniture, d) for d in documents]
    return documents, [d for d in loaded if isinstance(d, DocumentError)]


def extract_documents(
    documents: Sequence[Document],
    *,
    cache: Cache,
    domain: Domain,
    extractor: Extractor,
    max_chars: int = MAX_CHUNK_CHARS,
    overlap_chars: int = OVERLAP_CHARS,
    batch_size: int = OFFLINE_BATCH_SIZE,
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> tuple[list[Chunk], list[DocumentExtraction]]:
    """Chunk each document and extract every chunk through the cache (per chunk text); returns the chunks
    and one DocumentExtraction per document, in document order, after the extractor's document hook
    (`ExtractorBase.refine_documents`: the offline extractor's document- and corpus-level naming, which no
    per-chunk extraction can do). The extractor's declared capabilities (kgkit.stages.extract.capabilities)
    keep what it builds once in `cache` and make its inputs."""
    per_doc = {d.id: chunk_document(d, max_chars=max_chars, overlap_chars=overlap_chars) for d in documents}
    chunks = [c for cs in per_doc.values() for c in cs]
    done = 0

    def report(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress("extract", done, len(chunks))

    able = capabilities(extractor)
    able.use_cache(cache)  # the offline extractor: its gazetteer, built once, kept here
    inputs = able.prepare_inputs(per_doc)  # LLM extractors: shared document context, cost labels
    texts = cache.map(extract_texts, inputs, batch_size=batch_size, executor=executor,
                      on_batch=report, domain=domain, extractor=extractor)
    located: dict[str, list[ChunkExtraction]] = {d.id: [] for d in documents}
    for te, c in zip(texts, chunks):
        located[c.document_id].append(locate(te, c))
    merged = [merge_document(d, located[d.id]) for d in documents]
    return chunks, able.refine_documents(merged, domain=domain, texts={d.id: d.text for d in documents})
