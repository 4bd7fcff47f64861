"""Every tunable constant of entity resolution, in one frozen dataclass.

>>> ResolveConfig().replace(margin=0.1).margin
0.1
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class ResolveConfig:
    """Constants of the candidate cascade, the scores and the auto-accept policy.

    Blocking (keeps the work sub-quadratic):
    - `lsh_min_bits`, `lsh_min_chars`: the entropy gate. A match key with fewer bits (characters x Shannon
      entropy per character, kgkit.stages.resolve.keys.information_bits) or fewer characters does not enter
      MinHash/LSH: "John", "Inc", "AC" would collide with everything. Gated names still get the exact,
      acronym and person-initials rules.
    - `shingle`, `num_perm`, `lsh_threshold`, `seed`: character shingles, MinHash permutations, the Jaccard
      threshold the LSH bands are tuned for (b, r from datasketch's optimiser), permutation seed.
    - `max_bucket`: an LSH bucket or a rule block with more members than this is skipped (too unspecific
      to pair everything in it; its members still get other blocks).
    - `embed_top_k`, `embed_min_cosine`, `embed_max_nodes`: embedding neighbours for names still without
      a clear candidate after the lexical steps; exact cosine top-k within one type, skipped for a type with
      more than `embed_max_nodes` names (the brute-force matrix would dominate the run).
    Scores and verdicts:
    - `min_score`: candidates scoring below are dropped. 0.8: a pair below `auto_accept - margin` (0.85)
      can never change a policy merge, and reviewers see the pairs worth a look; lower it to see more.
    - `margin`: a best match not ahead of the runner-up (another exact-key group) by this much is ambiguous.
    - `context_tiebreak`: where the margin leaves a name ambiguous, the one close candidate (same type, within
      the margin of its best) that shares neighbours or documents with it, when the others share none, is
      unique ("J. Smith" linked to what "John Smith" is linked to, not to anything of "Jane Smith"). Needs
      graph features (merge_candidates(use_graph=True)).
    - `auto_accept`: the policy accepts unique, same-type candidates scoring at least this.
    - `person_conflict_cap`: two person names whose given names or surnames disagree score at most this
      (below `auto_accept`), unless they are one name with slips (name_rules.person_slip: misspelt words, scored
      on the string; the same words in another order or a space added or lost, `rule_swapped`).
    - `word_conflict_cap`: other names where each side has a word the other lacks and that is no typo of
      any word there ("Hamilton County" / "Milton County") score at most this; so do other names holding
      the same words in another order ("Wingtip Krusty Group" / "Krusty Wingtip Group": a moved date is
      already folded by the match key).
    - `rule_legal_form_differs`: "Acme Inc" / "Acme Corp" (or "X N.V." / "X B.V.") may be two companies, so
      by default they are a proposal for review (below `auto_accept`). Raise it to 0.93 where legal forms
      are noise (e.g. harmonising patent applicants: see bench/RESULTS.md).
    - `rule_surname_title`: a title and surname ("Judge Thompson") against a full name written elsewhere with
      that title ("Judge Mark Thompson"): the title is evidence, so this beats a bare surname match
      (`rule_surname_only`) by more than the margin. `rule_title_conflict`: against a name only ever
      written with other titles ("Dr. Thompson" / "Judge Mark Thompson"): below `min_score`, dropped.
    - `rule_qualifier`: one name is the other plus only qualifier words — a year, a kind word, a legal form
      ("Piper Summit" / "2001 Piper Summit", "Wingtip Vandelay" / "Wingtip Vandelay Bank"); with several
      such longer names ("2001 ..." and "2005 ...") the margin rule leaves the short one ambiguous.
    - `guards`, `guard_cap`: a pair the policy guard holds back (guards.policy_guard: the names differ by a number or a
      whole word, or are short names a letter or two apart) scores at most this, and at most `auto_accept`
      less 0.01: the policy never merges it, and the margin rule never takes it for another spelling of a
      name ("John Adams" and "John Quincy Adams" stay rivals for "J. Adams"). Above the conflict caps, so a
      reviewer sees these near-identical names first. `guards=False` turns this off (with
      `Policy(guards=False)`: to measure what the guards hold back).
    - `rule_scores`: the floor a name rule gives a pair (initials, middle initial, surname only, legal form, acronym).
    """

    shingle: int = 3
    num_perm: int = 64
    lsh_threshold: float = 0.5
    seed: int = 1
    lsh_min_bits: float = 12.0
    lsh_min_chars: int = 4
    max_bucket: int = 60
    embed_top_k: int = 5
    embed_min_cosine: float = 0.85
    embed_max_nodes: int = 20_000
    min_score: float = 0.8
    margin: float = 0.05
    context_tiebreak: bool = True
    auto_accept: float = 0.9
    neighbour_bonus: float = 0.05
    embed_weight: float = 0.2
    rule_initials: float = 0.92
    rule_middle: float = 0.93
    rule_surname_only: float = 0.8
    rule_acronym: float = 0.9
    rule_legal_form: float = 0.93
    rule_legal_form_differs: float = 0.88
    rule_swapped: float = 0.9
    rule_qualifier: float = 0.92
    rule_surname_title: float = 0.85
    rule_title_conflict: float = 0.75
    person_conflict_cap: float = 0.85
    word_conflict_cap: float = 0.85
    guards: bool = True
    guard_cap: float = 0.89

    def replace(self, **changes: object) -> ResolveConfig:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
