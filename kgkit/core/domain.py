"""Domains: entity types, relation types with allowed (source, target) signatures, fallbacks.

A domain is identified by the hash of its content, not its name. Parsing is pure (text in, Domain out);
reading the YAML file is kgkit.io's job (`kgkit.io.load_domain`).

>>> d = parse_domain('''
... name: tiny
... entity_types:
...   Person: {description: A human being, ner_labels: [PERSON]}
...   Organization: {description: A company or body}
...   Other: {description: Anything else}
... relation_types:
...   WORKS_FOR: {description: employment, signatures: [[Person, Organization]], triggers: [work for]}
... ''', source="tiny.yaml")
>>> d.entity_type_for_label("PERSON"), d.entity_type_for_label("WORK_OF_ART")
('Person', 'Other')
>>> d.id.startswith("domain:")
True
"""

from __future__ import annotations

import json
from functools import cached_property

import yaml
from pydantic import Field, ValidationError, model_validator

from kgkit.core.records import Record, safe_load_yaml, short_hash

REQUIRED_FALLBACK_TYPES = ("Person", "Organization", "Other")


class DomainError(ValueError):
    """A domain file that cannot be used; the message names the file and the field."""


class EntityType(Record):
    description: str
    ner_labels: tuple[str, ...] = ()  # extractor labels (spaCy NER) that map to this type


class RelationType(Record):
    description: str
    signatures: tuple[tuple[str, str], ...] = ()  # allowed (source type, target type); empty = any
    triggers: tuple[str, ...] = ()  # lemmatised predicates ("work for", "sign", "appos") that map here
    symmetric: bool = False
    single_valued: bool = False
    review_required: bool = False


class Domain(Record):
    """A validated domain. Use `parse_domain` (text) or `kgkit.io.load_domain` (file)."""

    name: str
    description: str = ""
    version: str = "1"
    entity_types: dict[str, EntityType]
    relation_types: dict[str, RelationType] = Field(default_factory=dict)
    fallback_entity_type: str = "Other"
    fallback_relation_type: str = "RELATED_TO"
    ignore_ner_labels: tuple[str, ...] = ()  # extractor labels dropped entirely (e.g. CARDINAL)
    canonical_names: dict[str, str] = Field(default_factory=dict)  # alias -> canonical name
    source: str = Field(default="<memory>", exclude=True)  # where it was read from; not part of identity

    @model_validator(mode="after")
    def _check_references(self) -> Domain:
        missing = [t for t in REQUIRED_FALLBACK_TYPES if t not in self.entity_types]
        if missing:
            raise ValueError(f"entity_types: missing fallback type(s) {missing}; every domain keeps {list(REQUIRED_FALLBACK_TYPES)}")
        if self.fallback_entity_type not in self.entity_types:
            raise ValueError(f"fallback_entity_type: {self.fallback_entity_type!r} is not in entity_types")
        for rname, rtype in self.relation_types.items():
            for i, (src, dst) in enumerate(rtype.signatures):
                for t in (src, dst):
                    if t not in self.entity_types:
                        raise ValueError(f"relation_types.{rname}.signatures[{i}]: unknown entity type {t!r}")
        labels: dict[str, str] = {}
        for tname, etype in self.entity_types.items():
            for label in etype.ner_labels:
                if label in labels:
                    raise ValueError(f"entity_types.{tname}.ner_labels: {label!r} already maps to {labels[label]!r}")
                if label in self.ignore_ner_labels:
                    raise ValueError(f"entity_types.{tname}.ner_labels: {label!r} is also in ignore_ner_labels")
                labels[label] = tname
        triggers: dict[str, str] = {}
        for rname, rtype in self.relation_types.items():
            for trigger in rtype.triggers:
                key = trigger.lower()
                if key in triggers:
                    raise ValueError(f"relation_types.{rname}.triggers: {trigger!r} already maps to {triggers[key]!r}")
                triggers[key] = rname
        return self

    @cached_property
    def id(self) -> str:
        """`domain:` + hash of the canonical content (name included, source path excluded)."""
        content = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return "domain:" + short_hash(content)  # key order in the YAML does not change the id

    def fingerprint(self) -> str:
        return self.id

    @cached_property
    def _label_map(self) -> dict[str, str]:
        return {label: t for t, et in self.entity_types.items() for label in et.ner_labels}

    @cached_property
    def _trigger_map(self) -> dict[str, str]:
        return {trig.lower(): r for r, rt in self.relation_types.items() for trig in rt.triggers}

    def entity_type_for_label(self, label: str) -> str | None:
        """The domain type for an extractor label; None when the label is ignored; fallback when unknown."""
        if label in self.ignore_ner_labels:
            return None
        if label in self.entity_types:
            return label
        return self._label_map.get(label, self.fallback_entity_type)

    def relation_type_for_predicate(self, predicate: str) -> str:
        """The relation type whose triggers include the predicate; the fallback type otherwise."""
        return self._trigger_map.get(predicate.lower(), self.fallback_relation_type)

    def allows(self, relation_type: str, source_type: str, target_type: str) -> bool:
        """True when the relation's signature admits (source_type, target_type), or it declares none."""
        rtype = self.relation_types.get(relation_type)
        if rtype is None or not rtype.signatures:
            return True
        return (source_type, target_type) in rtype.signatures

    def symmetric_types(self) -> frozenset[str]:
        """The relation types declared ``symmetric: true`` (stored with their endpoints in id order, rejected in
        both directions)."""
        return frozenset(name for name, spec in self.relation_types.items() if spec.symmetric)

    def canonical_name(self, name: str) -> str:
        return self.canonical_names.get(name, name)


def parse_domain(text: str, *, source: str = "<memory>") -> Domain:
    """Parse and validate domain YAML; errors name the source and the offending field."""
    try:
        raw = safe_load_yaml(text)
    except yaml.YAMLError as exc:
        raise DomainError(f"{source}: not valid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise DomainError(f"{source}: a domain file must be a mapping with name and entity_types")
    for key in ("entity_types", "relation_types"):
        section = raw.get(key) or {}
        if not isinstance(section, dict):
            raise DomainError(f"{source}: {key}: must be a mapping of type name -> definition")
        raw[key] = {name: ({"description": spec} if isinstance(spec, str) else spec) for name, spec in section.items()}
    try:
        return Domain.model_validate({**raw, "source": source})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) + ': ' if err['loc'] else ''}{err['msg'].removeprefix('Value error, ')}"
            for err in exc.errors()
        )
        raise DomainError(f"{source}: {problems}") from None
