"""Entity resolution: candidate cascade, tri-state identity, decisions, journaled apply with undo.

    candidates = merge_candidates(graph)                       # exact key -> rules + LSH -> embeddings
    decisions = decide(candidates, decisions=read_decisions(ws), at=now)   # policy; person ones kept
    applied = apply_decisions(graph, decisions, symmetric=domain.symmetric_types())  # graph + journal
    undo(applied.graph, applied.journal)                        # == graph, byte for byte
    identify(graph, "J. Smith")                                 # unique / ambiguous / not_found

See docs/resolution.md.
"""

from kgkit.core.decisions import Decision, Journal, MergeCandidate, person_decision  # the records, kept here too
from kgkit.stages.resolve.apply import Applied, apply_decisions, undo
from kgkit.stages.resolve.candidates import index_graph, merge_candidates
from kgkit.stages.resolve.config import ResolveConfig
from kgkit.stages.resolve.decisions import Judge, JudgeAnswer, Policy, decide, pending
from kgkit.stages.resolve.identify import Identity, identify
from kgkit.stages.resolve.judge import LLMJudge
from kgkit.stages.resolve.keys import match_key

__all__ = ["Applied", "Decision", "Identity", "Journal", "Judge", "JudgeAnswer", "LLMJudge", "MergeCandidate",
           "Policy", "ResolveConfig", "apply_decisions", "decide", "identify", "index_graph", "match_key",
           "merge_candidates", "pending", "person_decision", "undo"]
