// MergeReview front end: render() only touches the DOM; every state change goes through the pure
// functions of merge_review_logic.js and is written back to the anywidget model (traits `actions`,
// `cursor`, `threshold`). Every document-derived string is set with textContent (never as markup).
import { acceptAbove, decide, move, onKey, predecided, progress, setCanonical, statusOf } from "./merge_review_logic.js";

/** @typedef {import("./merge_review_logic.js").Model} Model */

const STYLE = `
.kgmr{font:13px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;outline:none;max-width:980px}
.kgmr-bar{display:flex;gap:10px;align-items:center;flex-wrap:wrap;margin:0 0 8px}
.kgmr-progress{flex:1;min-width:160px;height:10px;background:#eee;border-radius:5px;overflow:hidden;display:flex}
.kgmr-progress span{display:block;height:100%}
.kgmr-card{border:1px solid #ddd;border-radius:6px;padding:8px 10px;margin:0 0 6px;background:#fff}
.kgmr-card.kgmr-focus{border-color:#4e79a7;box-shadow:0 0 0 2px #4e79a733}
.kgmr-card.kgmr-accept{background:#eef7ee}.kgmr-card.kgmr-reject{background:#fbeeee}.kgmr-card.kgmr-skip{background:#f5f5f5}
.kgmr-names{font-weight:600;font-size:14px}.kgmr-type{color:#777;font-weight:400;font-size:12px}
.kgmr-meta,.kgmr-reasons,.kgmr-evidence,.kgmr-nb{color:#555;font-size:12px;margin:3px 0}
.kgmr-evidence li{font-style:italic}.kgmr-doc{font-style:normal;color:#777}
.kgmr-status{font-size:12px;font-weight:600;color:#8a5a00;background:#fff5dd;border-radius:4px;padding:1px 6px;display:inline-block;margin:3px 0}
.kgmr-card.kgmr-earlier{border-style:dashed}
.kgmr-actions{display:flex;gap:6px;align-items:center;margin-top:6px;flex-wrap:wrap}
.kgmr-actions button{cursor:pointer;border:1px solid #bbb;border-radius:4px;background:#fafafa;padding:2px 10px}
.kgmr-actions button.kgmr-on{background:#4e79a7;color:#fff;border-color:#4e79a7}
.kgmr-actions input{width:220px}
.kgmr-help{color:#777;font-size:11px}
`;

function node(tag, attrs = {}, text = null) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = String(text);
  return e;
}

/** @param {{model: any}} ctx @returns {Model} */
function read(model) {
  return {
    candidates: model.get("candidates") || [],
    actions: model.get("actions") || {},
    cursor: model.get("cursor") || 0,
    threshold: Number(model.get("threshold") ?? 0.9),
  };
}

function write(model, /** @type {Model} */ next) {
  model.set("actions", next.actions);
  model.set("cursor", next.cursor);
  model.set("threshold", next.threshold);
  model.save_changes();
}

function card(m, c, i, commit) {
  const action = m.actions[c.key];
  const cls = ["kgmr-card"];
  if (i === m.cursor) cls.push("kgmr-focus");
  if (action) cls.push(`kgmr-${action.verdict}`);
  if (predecided(c)) cls.push("kgmr-earlier");
  const box = node("div", { class: cls.join(" "), "data-key": c.key, "data-index": i });
  const names = node("div", { class: "kgmr-names" });
  names.append(node("span", { class: "kgmr-source" }, c.source_name), node("span", { class: "kgmr-type" }, ` (${c.source_type})`),
    document.createTextNode(" → "), node("span", { class: "kgmr-target" }, c.target_name),
    node("span", { class: "kgmr-type" }, ` (${c.target_type})`));
  box.append(names);
  const status = statusOf(m, c);
  if (status) box.append(node("div", { class: "kgmr-status", "data-role": "status" }, status));
  const feats = Object.entries(c.features || {}).map(([k, v]) => `${k} ${Number(v).toFixed(2)}`).join(", ");
  box.append(node("div", { class: "kgmr-meta" }, `score ${Number(c.score).toFixed(2)} · ${c.step} · ${c.verdict}${feats ? " · " + feats : ""}`));
  if ((c.reasons || []).length) box.append(node("div", { class: "kgmr-reasons" }, "why: " + c.reasons.join("; ")));
  if ((c.evidence || []).length) {
    const ul = node("ul", { class: "kgmr-evidence" });
    const docs = c.evidence_documents || [];
    c.evidence.forEach((s, k) => {
      const li = node("li", {}, s);
      if (docs[k]) li.append(node("span", { class: "kgmr-doc", "data-role": "document" }, ` — ${docs[k]}`));
      ul.append(li);
    });
    box.append(ul);
  }
  const nb = [];
  if ((c.source_neighbours || []).length) nb.push(`${c.source_name}: ${c.source_neighbours.join(", ")}`);
  if ((c.target_neighbours || []).length) nb.push(`${c.target_name}: ${c.target_neighbours.join(", ")}`);
  if (nb.length) box.append(node("div", { class: "kgmr-nb" }, "neighbours — " + nb.join(" | ")));
  const row = node("div", { class: "kgmr-actions" });
  for (const verdict of ["accept", "reject", "skip"]) {
    const label = verdict === "reject" && predecided(c) && c.decision === "merge" ? "veto" : verdict;
    const b = node("button", { type: "button", "data-action": verdict, class: action && action.verdict === verdict ? "kgmr-on" : "" },
      label);
    b.addEventListener("click", () => commit(decide(m, c.key, verdict)));
    row.append(b);
  }
  row.append(node("label", { class: "kgmr-help" }, "keep as"));
  const input = node("input", { type: "text", "data-role": "canonical" });
  input.value = action ? action.canonical : c.target_name;
  input.addEventListener("change", () => commit(setCanonical(m, c.key, input.value)));
  input.addEventListener("keydown", (e) => e.stopPropagation());
  row.append(input);
  box.append(row);
  box.addEventListener("click", (e) => {
    if (e.target === box && m.cursor !== i) commit(move(m, i - m.cursor));
  });
  return box;
}

function draw(el, model) {
  const m = read(model);
  const commit = (next) => write(model, next);
  el.replaceChildren();
  const root = node("div", { class: "kgmr", tabindex: 0 });
  root.append(node("style", {}, STYLE));
  const p = progress(m);
  const bar = node("div", { class: "kgmr-bar" });
  bar.append(node("span", { class: "kgmr-count", "data-role": "progress" },
    `${p.decided} / ${p.total} decided · ${p.accept} accepted · ${p.reject} rejected · ${p.skip} skipped` +
    (p.earlier || p.vetoed ? ` · ${p.earlier} decided earlier · ${p.vetoed} vetoed` : "")));
  const track = node("div", { class: "kgmr-progress" });
  for (const [k, colour] of [["accept", "#59a14f"], ["reject", "#e15759"], ["skip", "#bab0ac"]]) {
    track.append(node("span", { style: `width:${p.total ? (100 * p[k]) / p.total : 0}%;background:${colour}` }));
  }
  bar.append(track);
  const thr = node("input", { type: "number", min: 0, max: 1, step: 0.01, "data-role": "threshold" });
  thr.value = String(m.threshold);
  thr.addEventListener("keydown", (e) => e.stopPropagation());
  const all = node("button", { type: "button", "data-action": "accept-above" }, "accept all ≥");
  all.addEventListener("click", () => commit(acceptAbove(m, Number(thr.value))));
  bar.append(all, thr);
  root.append(bar);
  root.append(node("div", { class: "kgmr-help" }, "keys: a accept · r reject · v veto (keep apart a merge decided earlier) · s skip · u undo · j/↓ next · k/↑ previous"));
  if (!m.candidates.length) root.append(node("p", {}, "No merge candidates to review."));
  m.candidates.forEach((c, i) => root.append(card(m, c, i, commit)));
  root.addEventListener("keydown", (e) => {
    const next = onKey(m, e.key);
    if (next !== m) {
      e.preventDefault();
      commit(next);
    }
  });
  el.append(root);
  return root;
}

/** anywidget entry point. @param {{model: any, el: HTMLElement}} ctx */
function render({ model, el }) {
  let root = draw(el, model);
  const redraw = () => {
    const focused = el.contains(document.activeElement) && document.activeElement === root;
    root = draw(el, model);
    if (focused) root.focus();
  };
  for (const name of ["candidates", "actions", "cursor", "threshold"]) model.on(`change:${name}`, redraw);
  return () => {
    for (const name of ["candidates", "actions", "cursor", "threshold"]) model.off(`change:${name}`, redraw);
  };
}

export default { render };
