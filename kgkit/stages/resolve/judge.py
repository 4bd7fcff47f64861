"""The LLM judge: asks a model whether an ambiguous candidate is one entity, through kgkit.llm's client.

The client brings the budget ledger (a call is admitted only if its worst case fits), the per-request cache
(a re-run asks nothing and costs nothing) and retries; a failed or refused call is "cannot tell", never a
merge. The prompt and its response model live here, beside the adapter that renders them.

>>> from kgkit.core.decisions import MergeCandidate
>>> c = MergeCandidate(source="P:j smith", target="P:jane smith", source_name="J. Smith", target_name="Jane Smith",
...     source_type="Person", target_type="Person", score=0.92, step="rule", verdict="ambiguous", features={},
...     reasons=("initials agree",))
>>> judge_messages(c)[1]["content"].splitlines()[0]
'A: "J. Smith" (Person)'
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from kgkit.core.decisions import MergeCandidate
from kgkit.stages.resolve.decisions import JudgeAnswer

PROMPT_VERSION = "resolve-judge/1"
SYSTEM = ("You decide whether two names extracted from documents denote the same real-world entity. Answer "
          "'yes' only when the evidence makes it clear, 'no' when they are different entities, 'unsure' "
          "otherwise. Names that could each belong to several entities are 'unsure'.")


class SameEntity(BaseModel):
    """The judge's answer."""

    same: Literal["yes", "no", "unsure"]
    why: str = Field(description="one sentence")


def judge_messages(candidate: MergeCandidate) -> list[dict[str, str]]:
    """The chat messages for one candidate (names, types and the deterministic evidence)."""
    c = candidate
    evidence = "\n".join(f"- {r}" for r in c.reasons)
    user = (f'A: "{c.source_name}" ({c.source_type})\nB: "{c.target_name}" ({c.target_type})\n'
            f"Deterministic evidence (score {c.score:.2f}, {c.verdict}):\n{evidence}\n"
            "Are A and B the same entity?")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


class LLMJudge:
    """A `Judge` backed by a kgkit.llm.LLMClient (any litellm model, budget-capped by the client's ledger).

    `decide(candidates, judge=LLMJudge(client))` asks it only about what the policy left."""

    def __init__(self, client: Any, *, stage: str = "resolve_judge") -> None:
        self.client, self.stage = client, stage
        self.id = f"llm:{client.model}:{PROMPT_VERSION}"

    def __call__(self, candidate: MergeCandidate) -> JudgeAnswer:
        answer = self.client.ask_sync(judge_messages(candidate), SameEntity, stage=self.stage,
                                      label=f"{candidate.source} | {candidate.target}")
        if answer.value is None:
            return JudgeAnswer(same=None, why=f"no answer: {answer.error}")
        value = answer.value
        return JudgeAnswer(same={"yes": True, "no": False}.get(value.same), confidence=1.0 if value.same != "unsure" else 0.0,
                           why=value.why)
