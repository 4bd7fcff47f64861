"""The shortcuts a fresh `kgkit add` takes (issue 18) give what the long way gives: spaCy's pipeline loaded without
first building the default tokenizer (same tokenizer, vocabulary, config and parses), the corpus's word counts
prepared while the extraction workers parse (same coreference), YAML read by libyaml (same values, same errors).
"""

from __future__ import annotations

import pytest
import yaml
from conftest import DEMO_CORPUS

from kgkit.core.domain import DomainError, parse_domain, safe_load_yaml
from kgkit.io.decisions import DecisionFileError, parse_decisions

YAML_CASES = [
    "a: yes\nb: no\nc: on\nd: ~\ne: 0o17\nf: 017\ng: 0x1F\nh: .inf\ni: 1_000\nj: 1:20\nk: 1e3\n",
    "t: 2026-12-01T10:00:00Z\nu: 2026-12-01 10:00:00.5 +01:00\nv: 2026-12-01\n",
    "base: &b {x: 1}\nd:\n  <<: *b\n  y: 2\ns: |\n  one\n  two\nf: >\n  folded\n  text\n",
    "u: \"\\u00e9\\U0001F600 café\"\nq: 'it''s'\nr: \"\\x41\"\n- broken",
    "key:\tvalue\n",  # libyaml reads this; PyYAML refuses it, and so must we
    "a: [unclosed", "a: b\x07c\n", "{a: 1,\tb: 2}\n", "", "# only a comment\n", "%YAML 1.1\n---\na: 1\n",
    "x: !!python/object:os.system ls\n",
]


def _outcome(load, text: str) -> str:
    try:
        return repr(load(text))
    except yaml.YAMLError as exc:
        return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("text", YAML_CASES)
def test_yaml_is_read_as_pyyaml_reads_it(text: str) -> None:
    assert _outcome(safe_load_yaml, text) == _outcome(yaml.safe_load, text)


def test_domain_and_decision_files_parse_as_before() -> None:
    from kgkit.io.files import bundled_domains

    for path in bundled_domains().values():
        text = path.read_text(encoding="utf-8")
        assert safe_load_yaml(text) == yaml.safe_load(text)
    with pytest.raises(DomainError, match=r"(?s)bad.yaml: not valid YAML: .*line 1, column 5"):
        parse_domain("key:\tvalue\n", source="bad.yaml")  # PyYAML's own message
    text = "format: kgkit.decisions/1\ndecisions:\n- {id: d1, kind: merge, subjects: [a, b], at: 2026-01-01T00:00:00Z}\n"
    assert safe_load_yaml(text) == yaml.safe_load(text)
    with pytest.raises(DecisionFileError, match="not valid YAML"):
        parse_decisions("decisions: [unclosed", source="decisions.yaml")


def test_word_counts_taken_earlier_give_the_same_naming(general_domain) -> None:
    import kgkit.extractors.offline.coref as coref
    from kgkit.core.records import ChunkExtraction, DocumentExtraction, ExtractedEntity, Span, TextExtraction

    text = "Hitherto we went. We went hitherto, and Hitherto stayed.\n\nNationwide it rained."
    te = TextExtraction(extractor_id="x", quality="offline", entities=(
        ExtractedEntity(name="Hitherto", type="Person", label="NAME", span=Span(start=0, end=8)),
        ExtractedEntity(name="Nationwide", type="Organization", label="ORG", span=Span(start=58, end=68))))
    docs = [DocumentExtraction(document_id="d", path="d.txt", chunks=(
        ChunkExtraction(chunk_id="c", document_id="d", extraction=te),))]
    texts = {"d": text}
    counted = coref.coref_documents(docs, domain=general_domain, texts=texts)
    assert coref.coref_documents(docs, domain=general_domain, texts=texts, words=coref.WordStats(texts)) == counted
    assert [e.name for e in counted[0].chunks[0].extraction.entities] == ["Nationwide"]  # "Hitherto" dropped


@pytest.mark.slow
def test_the_pipeline_loads_without_the_default_tokenizer_and_parses_the_same(offline_extractor, tmp_path) -> None:
    """kgkit.extractors.offline.loading: the pipeline `load_model` gives equals spaCy's own `spacy.load`: the same
    tokenizer (its bytes), vocabulary strings (in order), config, components, and the same annotations of a demo
    document (bench/bench_add.py --check-spacy compares the whole demo corpus)."""
    import spacy
    from spacy.attrs import DEP, ENT_IOB, ENT_TYPE, HEAD, LEMMA, MORPH, NORM, ORTH, POS, SENT_START, SHAPE, TAG

    from kgkit.extractors.offline import load_model
    from kgkit.extractors.offline.loading import _saves_default_tokenizer, load_pipeline

    name = offline_extractor.model
    assert _saves_default_tokenizer(spacy.util, name)
    ours, theirs = load_pipeline(spacy, name), spacy.load(name)
    # the session's model (maybe used already: its vocabulary grows with what it parsed), loaded the same way
    assert load_model(name).tokenizer.to_bytes(exclude=["vocab"]) == theirs.tokenizer.to_bytes(exclude=["vocab"])
    assert ours.tokenizer.to_bytes() == theirs.tokenizer.to_bytes()
    assert list(ours.vocab.strings) == list(theirs.vocab.strings)
    assert ours.config.to_str() == theirs.config.to_str() and ours.pipe_names == theirs.pipe_names
    text = (DEMO_CORPUS / "1937-Roosevelt-1.txt").read_text(encoding="utf-8")[:8000]
    attrs = [ORTH, NORM, SHAPE, TAG, POS, LEMMA, DEP, HEAD, ENT_IOB, ENT_TYPE, SENT_START, MORPH]
    a, b = ours(text), theirs(text)
    assert len(a) > 1000 and (a.to_array(attrs) == b.to_array(attrs)).all()
    assert [(e.start_char, e.end_char, e.label_) for e in a.ents] == [(e.start_char, e.end_char, e.label_) for e in b.ents]
    assert [t.text_with_ws for t in a] == [t.text_with_ws for t in b]

    (tmp_path / "config.cfg").write_text('[nlp]\nlang = "en"\npipeline = []\ntokenizer = {"@tokenizers":"spacy.Tokenizer.v1"}\n')
    assert not _saves_default_tokenizer(spacy.util, str(tmp_path))  # no saved tokenizer: spacy.load as it is
    (tmp_path / "tokenizer").write_bytes(b"")
    assert _saves_default_tokenizer(spacy.util, str(tmp_path))
    (tmp_path / "config.cfg").write_text('[nlp]\nlang = "en"\npipeline = []\ntokenizer = {"@tokenizers":"mine.v1"}\n')
    assert not _saves_default_tokenizer(spacy.util, str(tmp_path))  # a tokenizer of its own: left to spaCy
    assert not _saves_default_tokenizer(spacy.util, "no_such_spacy_model")
