import { test } from "node:test";
import assert from "node:assert/strict";
import {
  acceptAbove, clear, current, decide, initialModel, move, onKey, progress, setCanonical, statusOf,
} from "./merge_review_logic.js";

const cand = (key, score, target_name = key.toUpperCase()) => ({
  key, source: `s${key}`, target: `t${key}`, source_name: key, target_name, source_type: "Person",
  target_type: "Person", score, step: "rule", verdict: "unique", reasons: [], features: {}, evidence: [],
  source_neighbours: [], target_neighbours: [],
});
const three = () => initialModel([cand("a", 0.95), cand("b", 0.7), cand("c", 0.91)], 0.9);

test("decide records the verdict with the target name and moves to the next undecided", () => {
  const m = decide(three(), "a", "accept");
  assert.deepEqual(m.actions, { a: { verdict: "accept", canonical: "A" } });
  assert.equal(m.cursor, 1);
  const m2 = decide(m, "b", "reject");
  assert.equal(m2.actions.b.verdict, "reject");
  assert.equal(m2.cursor, 2);
});

test("transitions never mutate their input", () => {
  const m = three();
  const frozen = JSON.stringify(m);
  decide(m, "a", "accept"); setCanonical(m, "a", "X"); acceptAbove(m); move(m, 1); onKey(m, "r");
  assert.equal(JSON.stringify(m), frozen);
});

test("unknown verdicts throw, unknown keys are ignored", () => {
  assert.throws(() => decide(three(), "a", "maybe"));
  const m = three();
  assert.equal(decide(m, "zzz", "accept"), m);
});

test("editing the canonical name keeps the verdict, accepts when undecided, refuses blanks", () => {
  let m = decide(three(), "b", "reject");
  m = setCanonical(m, "b", "  Bee  ");
  assert.deepEqual(m.actions.b, { verdict: "reject", canonical: "Bee" });
  m = setCanonical(m, "a", "Ay");
  assert.deepEqual(m.actions.a, { verdict: "accept", canonical: "Ay" });
  assert.equal(setCanonical(m, "c", "   "), m);
  // a later verdict keeps the edited name
  assert.equal(decide(m, "a", "skip").actions.a.canonical, "Ay");
});

test("accept all above threshold leaves decided and lower candidates alone", () => {
  let m = decide(three(), "a", "reject");
  m = acceptAbove(m);
  assert.deepEqual(Object.keys(m.actions).sort(), ["a", "c"]);
  assert.equal(m.actions.a.verdict, "reject");
  assert.equal(m.actions.c.verdict, "accept");
  assert.equal(acceptAbove(three(), 0.5).actions.b.verdict, "accept");
});

test("progress counts each verdict", () => {
  let m = decide(three(), "a", "accept");
  m = decide(m, "b", "skip");
  assert.deepEqual(progress(m), { total: 3, decided: 2, accept: 1, reject: 0, skip: 1, earlier: 0, vetoed: 0 });
  assert.deepEqual(progress(clear(m, "b")), { total: 3, decided: 1, accept: 1, reject: 0, skip: 0, earlier: 0, vetoed: 0 });
});

test("keyboard shortcuts act on the focused candidate", () => {
  let m = three();
  m = onKey(m, "j");
  assert.equal(current(m).key, "b");
  m = onKey(m, "r");
  assert.equal(m.actions.b.verdict, "reject");
  m = onKey(move(m, -5), "a");
  assert.equal(m.actions.a.verdict, "accept");
  m = onKey(m, "ArrowUp");
  m = onKey(m, "ArrowUp");
  assert.equal(m.cursor, 0);
  assert.equal(onKey(m, "q"), m);
  m = onKey(m, "u");
  assert.ok(!("a" in m.actions));
});

test("an empty candidate list is safe", () => {
  const m = initialModel([]);
  assert.equal(current(m), null);
  assert.equal(onKey(m, "a"), m);
  assert.deepEqual(progress(m), { total: 0, decided: 0, accept: 0, reject: 0, skip: 0, earlier: 0, vetoed: 0 });
});

const policyMerged = (key, score) => ({
  ...cand(key, score), decided_by: "policy", decision: "merge", status: `policy merged: score ${score.toFixed(2)} — v to veto`,
});
const mixed = () => initialModel([cand("a", 0.88), cand("b", 0.6), policyMerged("p", 0.97)], 0.9);

test("a policy merge is shown as decided, v vetoes it, u withdraws the veto", () => {
  let m = mixed();
  const p = m.candidates[2];
  assert.equal(statusOf(m, p), "policy merged: score 0.97 — v to veto");
  assert.equal(statusOf(m, m.candidates[0]), "");
  assert.deepEqual(progress(m), { total: 3, decided: 0, accept: 0, reject: 0, skip: 0, earlier: 1, vetoed: 0 });
  m = onKey(move(m, 2), "v");
  assert.equal(m.actions.p.verdict, "reject");
  assert.match(statusOf(m, p), /^vetoed: kept apart \(was policy merged, score 0\.97\)/);
  assert.deepEqual(progress(m), { total: 3, decided: 1, accept: 0, reject: 1, skip: 0, earlier: 0, vetoed: 1 });
  m = onKey({ ...m, cursor: 2 }, "u");
  assert.ok(!("p" in m.actions));
  assert.equal(statusOf(m, p), "policy merged: score 0.97 — v to veto");
});

test("the cursor goes to open candidates before decided ones; accept all leaves decided ones alone", () => {
  let m = decide(mixed(), "a", "accept");
  assert.equal(m.cursor, 1);  // b: open
  m = decide(m, "b", "skip");
  assert.equal(m.cursor, 2);  // no open one left: the policy merge, to confirm or veto
  const all = acceptAbove(mixed(), 0.5);
  assert.deepEqual(Object.keys(all.actions).sort(), ["a", "b"]);
});
