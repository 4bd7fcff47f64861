// Pure state transitions of the MergeReview widget: no DOM, no model, no side effects.
// Tested with `node --test kgkit/views/`. render() in merge_review.js calls these and writes the result back
// to the anywidget model.

/**
 * One candidate pair as the Python side sends it (kgkit.views.widgets.candidates_payload).
 * @typedef {Object} Candidate
 * @property {string} key            stable key "source|target"
 * @property {string} source         entity id merged away on accept
 * @property {string} target         entity id kept on accept
 * @property {string} source_name
 * @property {string} target_name
 * @property {string} source_type
 * @property {string} target_type
 * @property {number} score
 * @property {string} step
 * @property {string} verdict        identity verdict: unique | ambiguous | not_found
 * @property {string[]} reasons
 * @property {Object<string, number>} features
 * @property {string[]} evidence     evidence sentences mentioning either entity
 * @property {string[]} [evidence_documents]  the document (path) each evidence sentence comes from ("" unknown)
 * @property {string|null} [decided_by]  who already decided the pair: policy | llm | person, null when undecided
 * @property {string|null} [decision]    that decision's kind: merge | keep_apart
 * @property {string} [status]           e.g. "policy merged: score 0.97 — v to veto" ("" when undecided)
 * @property {string[]} source_neighbours
 * @property {string[]} target_neighbours
 */

/**
 * What a person decided about one candidate.
 * @typedef {Object} Action
 * @property {"accept"|"reject"|"skip"} verdict
 * @property {string} canonical      the name the kept entity should carry
 */

/**
 * The synced traits (the anywidget model).
 * @typedef {Object} Model
 * @property {Candidate[]} candidates
 * @property {Object<string, Action>} actions   keyed by Candidate.key
 * @property {number} cursor                    index of the focused candidate
 * @property {number} threshold                 for "accept all at or above"
 */

export const VERDICTS = ["accept", "reject", "skip"];

/** @param {Candidate[]} candidates @returns {Model} */
export function initialModel(candidates, threshold = 0.9) {
  return { candidates: candidates.slice(), actions: {}, cursor: 0, threshold };
}

function clamp(i, n) {
  return n === 0 ? 0 : Math.max(0, Math.min(n - 1, i));
}

/** The candidate under the cursor, or null. @param {Model} m */
export function current(m) {
  return m.candidates.length ? m.candidates[clamp(m.cursor, m.candidates.length)] : null;
}

/** True when the pair was decided before this review (policy, llm or an earlier person decision). */
export function predecided(c) {
  return Boolean(c && c.decided_by);
}

/** True when nobody has decided the candidate: no decision before the review and no action in it. */
export function open(m, c) {
  return !predecided(c) && !(c.key in m.actions);
}

/**
 * Index of the first open candidate after `from` (wrapping); else the first one without an action (a
 * decided one still to confirm or veto); else `from`.
 */
export function nextUndecided(m, from) {
  const n = m.candidates.length;
  for (const test of [(c) => open(m, c), (c) => !(c.key in m.actions)]) {
    for (let step = 1; step <= n; step++) {
      const i = (from + step) % n;
      if (test(m.candidates[i])) return i;
    }
  }
  return clamp(from, n);
}

/**
 * The line a card shows about who decided: the earlier decision ("policy merged: score 0.97 — v to veto"),
 * or what the reviewer did to it (a veto of a merge). "" for an undecided candidate.
 * @param {Model} m @param {Candidate} c @returns {string}
 */
export function statusOf(m, c) {
  const a = m.actions[c.key];
  if (predecided(c) && c.decision === "merge" && a && a.verdict === "reject") {
    return `vetoed: kept apart (was ${c.decided_by} merged, score ${Number(c.score).toFixed(2)}) — u to withdraw the veto`;
  }
  if (predecided(c) && c.decision === "merge" && a && a.verdict === "accept") return `merge confirmed by you (was ${c.decided_by})`;
  return c.status || "";
}

/**
 * Record a verdict for one candidate and move the cursor to the next undecided one.
 * @param {Model} m @param {string} key @param {"accept"|"reject"|"skip"} verdict @returns {Model}
 */
export function decide(m, key, verdict) {
  if (!VERDICTS.includes(verdict)) throw new Error(`unknown verdict ${verdict}`);
  const index = m.candidates.findIndex((c) => c.key === key);
  if (index < 0) return m;
  const old = m.actions[key];
  const canonical = old ? old.canonical : m.candidates[index].target_name;
  const actions = { ...m.actions, [key]: { verdict, canonical } };
  const next = { ...m, actions };
  return { ...next, cursor: nextUndecided(next, index) };
}

/** Withdraw the action on one candidate. @param {Model} m @param {string} key @returns {Model} */
export function clear(m, key) {
  if (!(key in m.actions)) return m;
  const actions = { ...m.actions };
  delete actions[key];
  return { ...m, actions };
}

/**
 * Edit the canonical name of a candidate (the name the kept entity carries); an edit accepts the merge
 * unless the candidate was already decided. Blank names are refused (the model is returned unchanged).
 * @param {Model} m @param {string} key @param {string} name @returns {Model}
 */
export function setCanonical(m, key, name) {
  const c = m.candidates.find((x) => x.key === key);
  const clean = String(name).trim();
  if (!c || !clean) return m;
  const old = m.actions[key];
  const verdict = old ? old.verdict : "accept";
  return { ...m, actions: { ...m.actions, [key]: { verdict, canonical: clean } } };
}

/**
 * Accept every undecided candidate scoring at or above the threshold (candidates decided before the review,
 * by the policy or anyone, are left as they are). @param {Model} m @returns {Model}
 */
export function acceptAbove(m, threshold = m.threshold) {
  const actions = { ...m.actions };
  for (const c of m.candidates) {
    if (open(m, c) && c.score >= threshold) actions[c.key] = { verdict: "accept", canonical: c.target_name };
  }
  return { ...m, actions, threshold };
}

/** Move the cursor by delta (clamped). @param {Model} m @param {number} delta @returns {Model} */
export function move(m, delta) {
  return { ...m, cursor: clamp(m.cursor + delta, m.candidates.length) };
}

/**
 * Counts for the progress bar: actions taken in this review, plus `earlier` (candidates decided before it and
 * not acted on) and `vetoed` (earlier merges this review rejects). @param {Model} m
 */
export function progress(m) {
  const out = { total: m.candidates.length, decided: 0, accept: 0, reject: 0, skip: 0, earlier: 0, vetoed: 0 };
  for (const c of m.candidates) {
    const a = m.actions[c.key];
    if (a) {
      out.decided += 1;
      out[a.verdict] += 1;
      if (predecided(c) && c.decision === "merge" && a.verdict === "reject") out.vetoed += 1;
    } else if (predecided(c)) {
      out.earlier += 1;
    }
  }
  return out;
}

/** Keyboard shortcuts -> action names. */
export const SHORTCUTS = {
  a: "accept", y: "accept", r: "reject", n: "reject", v: "reject", s: "skip", u: "clear",
  j: "next", ArrowDown: "next", k: "prev", ArrowUp: "prev",
};

/**
 * Apply a keyboard shortcut to the focused candidate. Unknown keys leave the model unchanged.
 * @param {Model} m @param {string} key a KeyboardEvent.key @returns {Model}
 */
export function onKey(m, key) {
  const action = SHORTCUTS[key];
  const c = current(m);
  if (!action || !c) return m;
  if (action === "next") return move(m, 1);
  if (action === "prev") return move(m, -1);
  if (action === "clear") return clear(m, c.key);
  return decide(m, c.key, action);
}
