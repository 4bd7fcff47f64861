"""kgkit: documents -> knowledge graph you can see, question, correct and reproduce.

Import is light: heavy pieces (spaCy, torch, litellm) load only when used.
"""

__version__ = "0.1.0"
