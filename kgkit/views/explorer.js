// Graph explorer front end: the standalone page (graph.html) and the anywidget share this module.
// sigma.js draws the graph with WebGL (graphology holds it; positions come precomputed, no physics); everything
// else is plain DOM. Document text is only ever inserted with textContent / text nodes, never as HTML; on the
// canvas, names are drawn with fillText.
/**
 * @typedef {object} Model  anywidget's model: traits `payload` (kgkit.explorer/1, see
 *   kgkit/views/explorer/payload.py), `selected` (entity ids, both ways) and `height` (CSS size).
 * @property {(name: string) => any} get
 * @property {(name: string, value: any) => void} set
 * @property {(event: string, callback: Function) => void} on
 * @property {(event: string, callback: Function) => void} off
 * @property {() => void} save_changes
 */
import {
  adjacency, defaultState, findSpan, markTerms, neighbourhood, popView, pushView, searchIndex, segments, shortestPath,
  suggest, visible,
} from "./explorer_logic.js";
import { drawGraph } from "./explorer_view.js";

const CSS = `
.kgx{font:13px system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;background:#fff;display:flex;flex-direction:column;gap:6px}
.kgx *{box-sizing:border-box}
.kgx-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:2px 16px}
.kgx-head h1{font-size:18px;margin:0}
.kgx-note,.kgx-status{font-size:12px;color:#555}
.kgx-bar{display:flex;flex-wrap:wrap;gap:6px;align-items:center;position:relative}
.kgx-search{position:relative}
.kgx-search input{width:300px;padding:5px 8px;font:inherit;border:1px solid #999;border-radius:4px}
.kgx-suggest{position:absolute;z-index:10;top:100%;left:0;width:360px;margin:2px 0 0;padding:0;list-style:none;background:#fff;border:1px solid #bbb;border-radius:4px;box-shadow:0 2px 6px rgba(0,0,0,.15)}
.kgx-suggest:empty{display:none}
.kgx-suggest button{display:block;width:100%;text-align:left;border:0;background:none;padding:4px 8px;font:inherit;cursor:pointer}
.kgx-suggest button:hover,.kgx-suggest button:focus{background:#e8f0fe}
.kgx-muted{color:#666;font-size:11px}
.kgx button.kgx-btn{font:inherit;font-size:12px;padding:3px 8px;border:1px solid #aaa;border-radius:4px;background:#f6f6f6;cursor:pointer}
.kgx-main{display:flex;gap:8px;align-items:stretch}
.kgx-filters{width:230px;flex:none;overflow-y:auto;font-size:12px;border:1px solid #ddd;border-radius:4px;padding:6px}
.kgx-filters h3,.kgx-details h3{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#555;margin:8px 0 3px}
.kgx-filters label{display:flex;gap:4px;align-items:center;margin:1px 0;cursor:pointer}
.kgx-filters select,.kgx-filters input[type=range]{width:100%}
.kgx-swatch{display:inline-block;width:11px;height:11px;border-radius:50%;flex:none}
.kgx-count{color:#777;margin-left:auto}
.kgx-canvas{flex:1;min-width:200px;border:1px solid #ddd;border-radius:4px;position:relative}
.kgx-details{width:340px;flex:none;overflow-y:auto;border:1px solid #ddd;border-radius:4px;padding:6px 8px;font-size:12px}
.kgx-details h2{font-size:16px;margin:4px 0;word-break:break-word}
.kgx-details ul{margin:2px 0;padding-left:16px}
.kgx-details li{margin:2px 0;word-break:break-word}
.kgx-details blockquote{margin:4px 0;padding:3px 6px;border-left:3px solid #ccc;background:#fafafa;word-break:break-word}
.kgx-details mark{background:#ffe08a;padding:0 1px}
.kgx-link{border:0;background:none;padding:0;color:#0b57d0;cursor:pointer;font:inherit;text-align:left;text-decoration:underline}
.kgx-kv{display:grid;grid-template-columns:auto 1fr;gap:1px 8px}
.kgx-kv dt{color:#666}.kgx-kv dd{margin:0;word-break:break-word}
.kgx-flag{color:#C8102E;font-weight:600}
.kgx-canvas{overflow:hidden}
.kgx-tip{position:absolute;display:none;padding:4px 6px;white-space:pre-wrap;word-break:break-word;max-width:380px;font-size:12px;background:#fff;border:1px solid #999;border-radius:3px;box-shadow:0 1px 4px rgba(0,0,0,.2);pointer-events:none;z-index:5}
.kgx-nogl{margin:16px;color:#555}
`;

/** An element with attributes and children; string children become text nodes (never parsed as HTML). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "on") for (const [ev, f] of Object.entries(v)) el.addEventListener(ev, f);
    else if (k === "value") el.value = v;
    else if (k === "checked") el.checked = Boolean(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

function marked(parts) {
  return parts.map((p) => (p.mark ? h("mark", {}, p.text) : document.createTextNode(p.text)));
}

function clip(text, n) {
  const t = String(text ?? "");
  return t.length <= n ? t : t.slice(0, n - 1) + "\u2026";
}

/** Draw the explorer for `payload` into `el`. `onSelect(ids)` hears selection changes (entity ids).
 * Returns an API (select, focus, setState, back, ...) that the widget and the tests use. */
export function mount(el, payload, { onSelect = () => {}, height = "760px" } = {}) {
  performance.mark("kgx:mount");
  const byId = new Map(payload.nodes.map((n) => [n.id, n]));
  const edgeById = new Map(payload.edges.map((e) => [e.id, e]));
  const index = searchIndex(payload.nodes);
  const adj = adjacency(payload.edges);
  const docName = (i) => payload.documents[i] ?? "(unknown document)";
  const docTip = (i) => payload.document_ids[i] ?? "";
  const typeColour = new Map(payload.types.map(([t, c]) => [t, c]));
  let state = defaultState();
  let history = [];
  let pathFrom = null;
  // what the renderer shows: everything at first
  let shown = { nodes: new Set(payload.nodes.map((n) => n.id)), edges: new Set(payload.edges.map((e) => e.id)) };

  el.replaceChildren();
  const root = h("div", { class: "kgx", "data-kg-explorer": "1" });
  root.append(h("style", {}, CSS));
  el.append(root);

  // header, search bar
  const status = h("span", { class: "kgx-status", "data-role": "status" });
  root.append(h("header", { class: "kgx-head" }, h("h1", {}, payload.title), h("span", { class: "kgx-note" }, payload.note), status));
  const input = h("input", { type: "search", placeholder: "Find an entity (name or alias)\u2026", "aria-label": "find an entity", "data-role": "search" });
  const list = h("ul", { class: "kgx-suggest", role: "listbox", "data-role": "suggestions" });
  const hops = h("select", { "data-role": "hops", title: "focus depth" }, [1, 2, 3].map((n) => h("option", { value: n }, `${n} hop${n > 1 ? "s" : ""}`)));
  const clearFocus = h("button", { class: "kgx-btn", "data-action": "show-all", type: "button" }, "Show all");
  const fit = h("button", { class: "kgx-btn", "data-action": "fit", type: "button" }, "Fit");
  const png = h("button", { class: "kgx-btn", "data-action": "png", type: "button", title: "save the current view as PNG" }, "PNG");
  const svgButton = h("button", { class: "kgx-btn", "data-action": "svg", type: "button", title: "save the shown entities and relations as SVG" }, "SVG");
  const banner = h("span", { class: "kgx-muted", "data-role": "banner" });
  root.append(h("div", { class: "kgx-bar" }, h("div", { class: "kgx-search" }, input, list), h("label", { class: "kgx-muted" }, "focus ", hops), clearFocus, fit, png, svgButton, banner));

  // filters | canvas | details
  const filters = h("aside", { class: "kgx-filters", "data-role": "filters", style: `height:${height}` });
  const canvas = h("div", { class: "kgx-canvas", style: `height:${height}` });
  const details = h("aside", { class: "kgx-details", "data-role": "details", style: `height:${height}` },
    h("p", { class: "kgx-muted" }, "Click an entity or a relation, or find one by name, to see its details and evidence."));
  root.append(h("div", { class: "kgx-main" }, filters, canvas, details));

  // --- filters ---
  const change = (patch) => setState(patch);
  const checkbox = (label, checked, onchange, attrs = {}, swatch = null, count = null) => h("label", {},
    h("input", { type: "checkbox", checked, on: { change: (ev) => onchange(ev.target.checked) }, ...attrs }),
    swatch ? h("span", { class: "kgx-swatch", style: `background:${swatch}` }) : null, label,
    count !== null ? h("span", { class: "kgx-count" }, String(count)) : null);
  const toggle = (list, value, on) => (on ? list.filter((v) => v !== value) : [...list, value]);

  filters.append(h("h3", {}, "Entity types"));
  for (const [t, c, n] of payload.types) {
    filters.append(checkbox(t, true, (on) => change({ hiddenTypes: toggle(state.hiddenTypes, t, on) }), { "data-filter": "type", "data-value": t }, c, n));
  }
  if (payload.colour_by !== "type" && payload.legend.length) {
    filters.append(h("h3", {}, `Colour: ${payload.colour_by}`));
    const legend = h("ul", { style: "list-style:none;padding:0;margin:0", "data-role": "legend" });
    for (const [g, c, n] of payload.legend.slice(0, 24)) legend.append(h("li", {}, h("span", { class: "kgx-swatch", style: `background:${c}` }), " ", g, " ", h("span", { class: "kgx-count" }, `(${n})`)));
    filters.append(legend);
  }
  filters.append(h("h3", {}, "Relations"));
  const weak = payload.relation_types.filter(([, , w]) => w);
  if (weak.length) {
    const n = weak.reduce((a, [, c]) => a + c, 0);
    filters.append(checkbox(`hide co-occurrence (${weak.map(([t]) => t).join(", ")})`, false, (on) => change({ hideWeak: on }), { "data-filter": "hide-weak" }, null, n));
  }
  const reviewCount = payload.edges.filter((e) => e.review).length;
  if (reviewCount) filters.append(checkbox("only needing review (flags)", false, (on) => change({ reviewOnly: on }), { "data-filter": "review" }, "#C8102E", reviewCount));
  for (const [t, n, w] of payload.relation_types) {
    if (w) continue;
    filters.append(checkbox(t, true, (on) => change({ hiddenRelationTypes: toggle(state.hiddenRelationTypes, t, on) }), { "data-filter": "relation-type", "data-value": t }, null, n));
  }
  const range = (label, role, min, max, step, value, onchange, fmt) => {
    const out = h("span", { class: "kgx-count" }, fmt(value));
    const r = h("input", { type: "range", min, max, step, value, "data-filter": role, on: { input: (ev) => { out.textContent = fmt(Number(ev.target.value)); onchange(Number(ev.target.value)); } } });
    return h("div", {}, h("label", {}, label, out), r);
  };
  const maxDegree = payload.nodes.reduce((m, n) => Math.max(m, n.degree), 0);
  filters.append(h("h3", {}, "Thresholds"));
  filters.append(range("min degree", "degree", 0, Math.max(1, Math.min(maxDegree, 60)), 1, 0, (v) => change({ minDegree: v }), String));
  filters.append(range("min confidence", "confidence", 0, 1, 0.05, 0, (v) => change({ minConfidence: v }), (v) => v.toFixed(2)));
  const maxSupport = payload.edges.reduce((m, e) => Math.max(m, e.support), 1);
  if (maxSupport > 1) filters.append(range("min support", "support", 0, Math.min(maxSupport, 20), 1, 0, (v) => change({ minSupport: v }), String));
  if (payload.time) {
    const steps = payload.time.steps;
    const fmt = (v) => (v >= steps.length ? "all dates" : steps[v].slice(0, 10));
    filters.append(h("h3", {}, "As of (valid time)"));
    filters.append(range("date", "time", 0, steps.length, 1, steps.length, (v) => change({ time: v >= steps.length ? null : steps[v] }), fmt));
  }
  if (payload.documents.length) {
    filters.append(h("h3", {}, "Document"));
    const sel = h("select", { "data-filter": "document", on: { change: (ev) => change({ document: Number(ev.target.value) }) } },
      h("option", { value: -1 }, `all ${payload.documents.length} documents`),
      payload.documents.map((d, i) => h("option", { value: i, title: docTip(i) }, clip(d, 60))));
    filters.append(sel);
  }
  if (payload.communities.length) {
    filters.append(h("h3", {}, "Community"));
    const sel = h("select", { "data-filter": "community", on: { change: (ev) => change({ community: ev.target.value }) } },
      h("option", { value: "" }, `all ${payload.communities.length} communities`),
      payload.communities.map(([id, n, , label]) => h("option", { value: id }, clip(`${id} (${n}): ${label}`, 70))));
    filters.append(sel);
  }

  // --- the graph (kgkit/views/explorer_view.js: sigma.js, WebGL) ---
  const view = drawGraph(canvas, payload, () => shown);
  const { renderer, graph } = view;
  const nodeTitle = (n) => `${n.name}\n${n.type} · ${n.degree} relations · ${n.mentions} mentions`;
  const edgeTitle = (e) => `${byId.get(e.source)?.name} \u2014${e.negated ? "not " : ""}${e.type}\u2192 ${byId.get(e.target)?.name}\n${clip(e.evidence, 300)}`;
  const tip = h("div", { class: "kgx-tip", "data-role": "tooltip" });
  canvas.append(tip);
  const fitShown = () => view.fit([...shown.nodes]);

  function apply({ draw = true } = {}) {
    const next = visible(payload, state);
    shown = next;
    if (draw) view.redraw();
    status.textContent = `showing ${next.nodes.size} of ${payload.nodes.length} entities \u00b7 ${next.edges.size} of ${payload.edges.length} relations`;
    root.setAttribute("data-visible-nodes", String(next.nodes.size));
    root.setAttribute("data-visible-edges", String(next.edges.size));
    const focus = state.path.length ? `path of ${state.path.length} entities` : state.focus.length ? `focus: ${state.focus.map((id) => byId.get(id)?.name ?? id).join(", ")} (${state.hops} hop${state.hops > 1 ? "s" : ""}; double-click expands)` : "";
    banner.textContent = pathFrom ? `path from ${byId.get(pathFrom)?.name}: pick the other entity` : focus;
  }

  function setState(patch) {
    state = { ...state, ...patch };
    apply();
    if (patch.focus || patch.path || patch.hops) fitShown();
  }

  // --- details panel ---
  const link = (text, onclick, attrs = {}) => h("button", { class: "kgx-link", type: "button", on: { click: onclick }, ...attrs }, text);
  const kv = (pairs) => h("dl", { class: "kgx-kv" }, pairs.filter(([, v]) => v !== null && v !== undefined && v !== "").flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
  const docList = (ids) => h("ul", { "data-role": "documents" }, ids.map((i) => h("li", { title: docTip(i) }, docName(i))));
  const back = () => h("button", { class: "kgx-btn", type: "button", "data-action": "back", disabled: history.length < 2, on: { click: goBack } }, "\u2190 back");

  function entityPanel(n) {
    const terms = [n.name, ...(n.aliases || [])];
    const mentions = (payload.mentions[n.id] || []).map(([d, s, a, b]) => {
      if (s < 0) return h("li", {}, h("span", { class: "kgx-muted" }, docName(d)), " \u2014 no sentence recorded");
      const text = payload.sentences[s];
      const span = b > a ? [a, b] : findSpan(text, terms) || [0, 0];
      return h("li", {}, h("span", { class: "kgx-muted", title: docTip(d) }, docName(d)), h("blockquote", { "data-role": "evidence" }, marked(segments(text, span[0], span[1]))));
    });
    const rels = (adj.get(n.id) || []).map(({ edge }) => edgeById.get(edge))
      .sort((a, b) => Number(a.weak) - Number(b.weak) || b.support - a.support || (a.id < b.id ? -1 : 1));
    const relItems = rels.slice(0, 60).map((e) => {
      const out = e.source === n.id;
      const other = byId.get(out ? e.target : e.source);
      return h("li", { "data-relation": e.id }, link(`${out ? "\u2192" : "\u2190"} ${e.negated ? "not " : ""}${e.type}`, () => selectRelation(e.id), { "data-action": "relation" }), " ",
        link(other.name, () => selectEntity(other.id), { "data-action": "entity", "data-entity": other.id }),
        e.review ? h("span", { class: "kgx-flag" }, " \u26a0") : null);
    });
    const community = payload.communities.find(([id]) => id === n.community);
    return [
      h("div", {}, back(), " ", h("button", { class: "kgx-btn", type: "button", "data-action": "focus", on: { click: () => focusOn([n.id]) } }, "Focus"), " ",
        h("button", { class: "kgx-btn", type: "button", "data-action": "path", on: { click: () => { pathFrom = n.id; apply(); } } }, "Path from here\u2026")),
      h("h2", { "data-role": "name" }, n.name),
      kv([["type", h("span", {}, h("span", { class: "kgx-swatch", style: `background:${typeColour.get(n.type) || n.colour}` }), " ", n.type)],
        ["aliases", (n.aliases || []).join(" \u00b7 ")], ["identity", n.identity], ["confidence", n.confidence.toFixed(2)],
        ["community", community ? `${community[0]}: ${community[3]}` : n.community], ["relations", String(n.degree)],
        ["mentions", String(n.mentions)], ["change", n.diff], ["id", h("code", {}, n.id)]]),
      h("h3", {}, `Documents (${n.docs.length})`), docList(n.docs),
      h("h3", {}, `Evidence (${mentions.length} of ${n.mention_count} mentions)`), h("ul", { "data-role": "mentions" }, mentions),
      h("h3", {}, `Relations (${rels.length})`), h("ul", { "data-role": "relations" }, relItems),
      rels.length > 60 ? h("p", { class: "kgx-muted" }, `${rels.length - 60} more not listed`) : null,
    ];
  }

  function relationPanel(e) {
    const s = byId.get(e.source), t = byId.get(e.target);
    const terms = [s.name, ...(s.aliases || []), t.name, ...(t.aliases || [])];
    return [
      h("div", {}, back()),
      h("h2", { "data-role": "name" }, link(s.name, () => selectEntity(s.id), { "data-action": "entity", "data-entity": s.id }),
        ` \u2014${e.negated ? "not " : ""}${e.type}\u2192 `, link(t.name, () => selectEntity(t.id), { "data-action": "entity", "data-entity": t.id })),
      h("blockquote", { "data-role": "evidence" }, e.evidence ? marked(markTerms(e.evidence, terms)) : "(no evidence sentence)"),
      kv([["predicate", e.predicate], ["confidence", e.confidence.toFixed(2)], ["support", String(e.support)],
        ["flags", e.flags.length ? h("span", { class: e.review ? "kgx-flag" : "" }, e.flags.join(", ")) : "none"],
        ["valid from", e.valid_at || "unknown"], ["invalid from", e.invalid_at || "\u2014"], ["change", e.diff],
        ["id", h("code", {}, e.id)]]),
      h("h3", {}, `Documents (${e.docs.length})`), docList(e.docs),
    ];
  }

  function showView(view) {
    if (!view) return;
    const parts = view.kind === "entity" ? entityPanel(byId.get(view.id)) : relationPanel(edgeById.get(view.id));
    details.replaceChildren(...parts.filter(Boolean));
    details.scrollTop = 0;
    root.setAttribute("data-selected", `${view.kind}:${view.id}`);
  }

  function selectEntity(id, { notify = true, move = true } = {}) {
    const n = byId.get(id);
    if (!n) return false;
    if (pathFrom && pathFrom !== id) {
      const route = shortestPath(adjacency(payload.edges.filter((e) => !(state.hideWeak && e.weak))), pathFrom, id);
      pathFrom = null;
      setState({ path: route.length ? route : [], focus: [] });
      banner.textContent = route.length ? `path: ${route.map((r) => byId.get(r).name).join(" \u2192 ")}` : "no path between them";
    }
    history = pushView(history, { kind: "entity", id });
    showView(history[history.length - 1]);
    view.highlight([id]);
    if (move) view.centreOn(id);
    if (notify) onSelect([id]);
    return true;
  }

  function selectRelation(id) {
    const e = edgeById.get(id);
    if (!e) return false;
    history = pushView(history, { kind: "relation", id });
    showView(history[history.length - 1]);
    view.highlight([], id);
    return true;
  }

  function goBack() {
    history = popView(history);
    const top = history[history.length - 1];
    showView(top);
    if (top && top.kind === "entity") { view.highlight([top.id]); onSelect([top.id]); }
    else if (top) view.highlight([], top.id);
  }

  function focusOn(ids) {
    setState({ focus: ids, path: [], hops: Number(hops.value) });
  }

  // --- events ---
  let picks = [];
  function renderSuggestions() {
    picks = suggest(index, input.value, 10);
    list.replaceChildren(...picks.map((p, i) => h("li", {}, h("button", { type: "button", "data-index": i, "data-entity": p.id, on: { click: () => choose(p) } },
      p.text, p.alias ? h("span", { class: "kgx-muted" }, ` alias of ${byId.get(p.id).name}`) : null, h("span", { class: "kgx-muted" }, ` \u00b7 ${byId.get(p.id).type}`)))));
  }
  function choose(p) {
    list.replaceChildren();
    input.value = byId.get(p.id).name;
    if (!shown.nodes.has(p.id) && (state.focus.length || state.path.length)) setState({ focus: [], path: [] });
    selectEntity(p.id);
    if (!shown.nodes.has(p.id)) banner.textContent = `${byId.get(p.id).name} is hidden by the filters on the left`;
  }
  input.addEventListener("input", renderSuggestions);
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && picks.length) { ev.preventDefault(); choose(picks[0]); }
    if (ev.key === "Escape") list.replaceChildren();
    if (ev.key === "ArrowDown" && picks.length) { ev.preventDefault(); list.querySelector("button").focus(); }
  });
  list.addEventListener("keydown", (ev) => {  // arrow keys move through the suggestions, Enter picks one
    const buttons = [...list.querySelectorAll("button")];
    const at = buttons.indexOf(document.activeElement);
    if (ev.key === "ArrowDown" && at < buttons.length - 1) { ev.preventDefault(); buttons[at + 1].focus(); }
    if (ev.key === "ArrowUp") { ev.preventDefault(); (at > 0 ? buttons[at - 1] : input).focus(); }
    if (ev.key === "Escape") { list.replaceChildren(); input.focus(); }
  });
  hops.addEventListener("change", () => state.focus.length && setState({ hops: Number(hops.value) }));
  clearFocus.addEventListener("click", () => { pathFrom = null; setState({ focus: [], path: [] }); });
  fit.addEventListener("click", fitShown);
  png.addEventListener("click", () => {
    const data = view.png();
    if (data) h("a", { download: "graph.png", href: data }).click();
  });
  /** The shown entities and relations as a standalone SVG document (text set as text, then serialised). */
  function svg() {
    const NS = "http://www.w3.org/2000/svg";
    const make = (tag, attrs) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
      return e;
    };
    const pos = Object.fromEntries(payload.nodes.filter((n) => shown.nodes.has(n.id)).map((n) => [n.id, { x: n.x, y: n.y }]));
    const xs = Object.values(pos).map((p) => p.x), ys = Object.values(pos).map((p) => p.y);
    const pad = 60, x0 = Math.min(...xs, 0) - pad, y0 = Math.min(...ys, 0) - pad;
    const doc = make("svg", { xmlns: NS, viewBox: `${x0} ${y0} ${Math.max(...xs, 0) + pad - x0} ${Math.max(...ys, 0) + pad - y0}` });
    doc.append(make("rect", { x: x0, y: y0, width: "100%", height: "100%", fill: "#fff" }));
    for (const e of payload.edges) {
      if (!shown.edges.has(e.id)) continue;
      const a = pos[e.source], b = pos[e.target];
      doc.append(make("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: e.colour, "stroke-width": e.review ? 3 : 1 }));
    }
    for (const n of payload.nodes) {
      if (!shown.nodes.has(n.id)) continue;
      const p = pos[n.id], r = 9 + 4 * Math.sqrt(Math.max(n.degree, 0));
      const c = make("circle", { cx: p.x, cy: p.y, r, fill: n.colour, stroke: "#555", "stroke-width": 0.5 });
      c.append(make("title", {}));
      c.lastChild.textContent = `${n.name} (${n.type})`;
      doc.append(c);
      if (n.rank < payload.labelled) {
        const t = make("text", { x: p.x, y: p.y + r + 14, "text-anchor": "middle", "font-size": 14, "font-family": "sans-serif" });
        t.textContent = clip(n.name, 40);
        doc.append(t);
      }
    }
    return new XMLSerializer().serializeToString(doc);
  }
  svgButton.addEventListener("click", () => {
    h("a", { download: "graph.svg", href: "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg()) }).click();
  });

  // --- canvas events ---
  const showTip = (text, event) => {
    tip.textContent = text;
    tip.style.display = "block";
    const { width } = renderer.getDimensions();
    tip.style.left = `${Math.min(event.x + 12, Math.max(0, width - 390))}px`;
    tip.style.top = `${event.y + 12}px`;
  };
  const hideTip = () => { tip.style.display = "none"; };
  if (renderer) {
    renderer.on("clickNode", ({ node, event }) => {
      const o = event.original || {};
      if (o.ctrlKey || o.metaKey || o.shiftKey) { // several entities: the selection another cell can read
        const next = new Set(view.selected());
        if (next.has(node)) next.delete(node); else next.add(node);
        view.highlight([...next]);
        onSelect([...next]);
        return;
      }
      selectEntity(node, { move: false });
    });
    renderer.on("clickEdge", ({ edge }) => selectRelation(edge));
    renderer.on("doubleClickNode", (e) => {
      e.preventSigmaDefault(); // no zoom: a double click expands the focus
      focusOn(state.focus.length ? [...new Set([...state.focus, e.node])] : [e.node]);
    });
    renderer.on("enterNode", ({ node, event }) => { canvas.style.cursor = "pointer"; showTip(nodeTitle(byId.get(node)), event); });
    renderer.on("leaveNode", () => { canvas.style.cursor = ""; hideTip(); });
    renderer.on("enterEdge", ({ edge, event }) => { canvas.style.cursor = "pointer"; showTip(edgeTitle(edgeById.get(edge)), event); });
    renderer.on("leaveEdge", () => { canvas.style.cursor = ""; hideTip(); });
    renderer.on("downStage", hideTip);
  }
  apply({ draw: false }); // the renderer drew everything when it was made, as the default state shows
  performance.mark("kgx:filters");
  const drawn = new Promise((resolve) => {
    // the first frame is on screen when the frame after it starts
    requestAnimationFrame(() => requestAnimationFrame(() => {
      root.setAttribute("data-kg-ready", "1");
      root.setAttribute("data-kg-relations", "1");
      performance.mark("kgx:relations");
      resolve();
    }));
  });

  const api = {
    renderer, graph, root, drawn,
    get state() { return state; },
    setState, selectEntity, selectRelation, back: goBack, focus: focusOn, visible: () => shown, svg, png: view.png,
    neighbours: (id, n) => neighbourhood(adj, [id], n),
    stats: view.stats, destroy: view.destroy,
  };
  root.kgExplorer = api; // for scripts and tests: document.querySelector(".kgx").kgExplorer
  return api;
}

/** anywidget entry: traits `payload` (Python -> browser), `selected` (entity ids, both ways), `height`. */
export default {
  render({ model, el }) {
    let api = null;
    let echo = false;
    const draw = () => {
      api?.destroy();
      api = mount(el, model.get("payload"), {
        height: model.get("height") || "620px",
        onSelect: (ids) => {
          if (echo) return;
          model.set("selected", ids);
          model.save_changes();
        },
      });
    };
    draw();
    const fromPython = () => {
      const ids = model.get("selected") || [];
      if (!api || !ids.length || api.root.getAttribute("data-selected") === `entity:${ids[0]}`) return;
      echo = true;
      try { api.selectEntity(ids[0]); } finally { echo = false; }
    };
    model.on("change:payload", draw);
    model.on("change:selected", fromPython);
    fromPython();
    return () => { model.off("change:payload", draw); model.off("change:selected", fromPython); api?.destroy(); };
  },
};
