"""Extractors: plug-ins satisfying `kgkit.stages.extract.Extractor`. Importing this package never imports spaCy."""

from kgkit.extractors.offline import OfflineExtractor

__all__ = ["OfflineExtractor"]
