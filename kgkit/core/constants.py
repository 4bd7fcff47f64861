"""Constants more than one layer uses, in one place (a stage's private tuning stays in its module).

>>> CO_OCCURRENCE, MAX_CHUNK_CHARS, OVERLAP_CHARS
('MENTIONED_WITH', 2000, 200)
"""

__all__ = ["CO_OCCURRENCE", "DEFAULT_MAX_BYTES", "DEFAULT_MAX_CHARS", "LOW_CONFIDENCE", "MAX_CHUNK_CHARS", "OFFLINE_BATCH_SIZE",
           "OVERLAP_CHARS", "VIEW_NODES", "WEAK_TYPES"]

CO_OCCURRENCE = "MENTIONED_WITH"
"""The relation type for two entities named in one sentence with no stated relation."""
WEAK_TYPES = (CO_OCCURRENCE,)
"""Relation types that count less (communities), are drawn faint (views) and are told last (narratives)."""
LOW_CONFIDENCE = 0.5
"""Relations whose combined confidence is below this are flagged low_confidence."""
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
"""Files above this are reported as too_large, never read."""
DEFAULT_MAX_CHARS = 20_000_000
"""Characters of text one document may expand to (whatever its container: a small DOCX or PDF can hold far
more text than its size suggests); past it the load stage stops extracting and reports too_large."""
MAX_CHUNK_CHARS = 2000
"""Characters per chunk at most (whole sentences)."""
OVERLAP_CHARS = 200
"""Characters of whole sentences repeated between neighbouring chunks."""
OFFLINE_BATCH_SIZE = 16
"""Chunks per extraction batch for the offline extractor (progress, memory)."""
VIEW_NODES = 400
"""Most-connected entities graph.html shows."""
