// Graph explorer: pure state logic (no DOM, no renderer), tested with `node --test`.
// The payload is kgkit.views.explorer.payload.explorer_payload's JSON; the filter state is a plain object.

/** Text folded for matching: case-folded, accents dropped, whitespace collapsed. */
export function fold(text) {
  return String(text ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** Search entries over names and aliases: [{id, text, key, alias, degree}]. */
export function searchIndex(nodes) {
  const out = [];
  for (const n of nodes) {
    out.push({ id: n.id, text: n.name, key: fold(n.name), alias: false, degree: n.degree });
    for (const a of n.aliases || []) out.push({ id: n.id, text: a, key: fold(a), alias: true, degree: n.degree });
  }
  return out;
}

function matchRank(key, q) {
  if (key === q) return 0;
  if (key.startsWith(q)) return 1;
  if (key.includes(" " + q) || key.includes("-" + q)) return 2;
  if (key.includes(q)) return 3;
  return -1;
}

/** Up to `limit` suggestions for `query`, one per entity: exact, prefix, word-prefix, then substring
 * matches, the most connected first. Each is {id, text, alias} (`text` is the name or alias that matched). */
export function suggest(index, query, limit = 8) {
  const q = fold(query);
  if (!q) return [];
  const best = new Map();
  for (const e of index) {
    const r = matchRank(e.key, q);
    if (r < 0) continue;
    const prev = best.get(e.id);
    if (!prev || r < prev.rank || (r === prev.rank && prev.alias && !e.alias)) best.set(e.id, { ...e, rank: r });
  }
  return [...best.values()]
    .sort((a, b) => a.rank - b.rank || b.degree - a.degree || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
    .slice(0, limit)
    .map(({ id, text, alias }) => ({ id, text, alias }));
}

/** The filter state everything starts from: nothing hidden, no focus, no date. */
export function defaultState() {
  return {
    hiddenTypes: [], hiddenRelationTypes: [], hideWeak: false, reviewOnly: false, minDegree: 0,
    minConfidence: 0, minSupport: 0, document: -1, community: "", time: null, focus: [], hops: 1, path: [],
  };
}

/** Is a relation in force at date `t` (ISO text): valid_at <= t (or unknown) and invalid_at > t (or none). */
export function activeAt(edge, t) {
  if (t == null) return true;
  if (edge.valid_at && edge.valid_at > t) return false;
  if (edge.invalid_at && edge.invalid_at <= t) return false;
  return true;
}

/** {id: [{edge, other}]} over the given edges (both directions). */
export function adjacency(edges) {
  const adj = new Map();
  const add = (a, b, e) => {
    if (!adj.has(a)) adj.set(a, []);
    adj.get(a).push({ edge: e.id, other: b });
  };
  for (const e of edges) {
    add(e.source, e.target, e);
    if (e.source !== e.target) add(e.target, e.source, e);
  }
  return adj;
}

/** Ids within `hops` steps of any of `seeds` (the seeds included). */
export function neighbourhood(adj, seeds, hops) {
  const seen = new Set(seeds);
  let frontier = [...seeds];
  for (let h = 0; h < hops && frontier.length; h++) {
    const next = [];
    for (const id of frontier) {
      for (const { other } of adj.get(id) || []) {
        if (!seen.has(other)) {
          seen.add(other);
          next.push(other);
        }
      }
    }
    frontier = next;
  }
  return seen;
}

/** A shortest path from `a` to `b` as a list of ids ([] when none; [a] when a === b). */
export function shortestPath(adj, a, b) {
  if (a === b) return [a];
  const prev = new Map([[a, null]]);
  let frontier = [a];
  while (frontier.length) {
    const next = [];
    for (const id of frontier) {
      for (const { other } of adj.get(id) || []) {
        if (prev.has(other)) continue;
        prev.set(other, id);
        if (other === b) {
          const path = [b];
          for (let p = id; p !== null; p = prev.get(p)) path.unshift(p);
          return path;
        }
        next.push(other);
      }
    }
    frontier = next;
  }
  return [];
}

function nodePasses(n, s) {
  if (s.hiddenTypes.includes(n.type)) return false;
  if (n.degree < s.minDegree) return false;
  if (s.document >= 0 && !(n.docs || []).includes(s.document)) return false;
  if (s.community && n.community !== s.community) return false;
  return true;
}

function edgePasses(e, s) {
  if (s.hiddenRelationTypes.includes(e.type)) return false;
  if (s.hideWeak && e.weak) return false;
  if (s.reviewOnly && !e.review) return false;
  if (e.confidence < s.minConfidence || e.support < s.minSupport) return false;
  if (s.document >= 0 && e.docs && e.docs.length && !e.docs.includes(s.document)) return false;
  return activeAt(e, s.time);
}

/** What is shown for `state`: {nodes: Set of ids, edges: Set of ids}. Entities pass the type, degree,
 * document and community filters; relations pass theirs and join two shown entities. "Needs review" keeps
 * the entities of the relations it keeps; a focus keeps the `hops` neighbourhood of the focus entities
 * over the shown relations; a path keeps its entities and the relations along it. */
export function visible(payload, state) {
  const s = { ...defaultState(), ...state };
  let nodes = new Set(payload.nodes.filter((n) => nodePasses(n, s)).map((n) => n.id));
  let edges = payload.edges.filter((e) => nodes.has(e.source) && nodes.has(e.target) && edgePasses(e, s));
  if (s.reviewOnly) nodes = new Set(edges.flatMap((e) => [e.source, e.target]));
  if (s.path && s.path.length) {
    const on = new Set(s.path);
    const steps = new Set(s.path.slice(1).map((b, i) => `${s.path[i]}\u0000${b}`));
    const along = (e) => steps.has(`${e.source}\u0000${e.target}`) || steps.has(`${e.target}\u0000${e.source}`);
    return { nodes: on, edges: new Set(payload.edges.filter(along).map((e) => e.id)) };
  }
  if (s.focus && s.focus.length) {
    const keep = neighbourhood(adjacency(edges), s.focus, s.hops);
    nodes = new Set([...keep].filter((id) => nodes.has(id) || s.focus.includes(id)));
    edges = edges.filter((e) => nodes.has(e.source) && nodes.has(e.target));
  }
  return { nodes, edges: new Set(edges.map((e) => e.id)) };
}

/** Text split around one span: [{text, mark}] (the span marked; a span outside the text marks nothing). */
export function segments(text, start, end) {
  const t = String(text ?? "");
  if (!(start >= 0) || !(end > start) || end > t.length) return [{ text: t, mark: false }];
  return [
    { text: t.slice(0, start), mark: false },
    { text: t.slice(start, end), mark: true },
    { text: t.slice(end), mark: false },
  ].filter((p) => p.text.length);
}

/** [start, end] of the first of `terms` (longest first) in `text` as a whole word, any case; null if none. */
export function findSpan(text, terms) {
  const t = String(text ?? "");
  const lower = t.toLowerCase();
  const sorted = [...new Set((terms || []).filter(Boolean))].sort((a, b) => b.length - a.length);
  for (const term of sorted) {
    const q = term.toLowerCase();
    let at = lower.indexOf(q);
    while (at >= 0) {
      const before = at === 0 ? "" : t[at - 1];
      const after = t[at + q.length] ?? "";
      if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return [at, at + q.length];
      at = lower.indexOf(q, at + 1);
    }
  }
  return null;
}

/** Marked segments for several terms: every whole-word occurrence of any of them. */
export function markTerms(text, terms) {
  const t = String(text ?? "");
  const marks = [];
  for (const term of [...new Set((terms || []).filter(Boolean))]) {
    let rest = 0;
    for (;;) {
      const span = findSpan(t.slice(rest), [term]);
      if (!span) break;
      marks.push([span[0] + rest, span[1] + rest]);
      rest += span[1];
    }
  }
  marks.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const out = [];
  let at = 0;
  for (const [s, e] of marks) {
    if (s < at) continue;
    if (s > at) out.push({ text: t.slice(at, s), mark: false });
    out.push({ text: t.slice(s, e), mark: true });
    at = e;
  }
  if (at < t.length) out.push({ text: t.slice(at), mark: false });
  return out.length ? out : [{ text: t, mark: false }];
}

/** A navigation history: push a view ({kind, id}) unless it is the current one; back returns the previous. */
export function pushView(history, view) {
  const top = history[history.length - 1];
  if (top && top.kind === view.kind && top.id === view.id) return history;
  return [...history, view];
}

export function popView(history) {
  return history.length > 1 ? history.slice(0, -1) : history;
}

/** An entity's radius in screen pixels at the zoom that fits the whole graph (`scale`, px per layout unit): the
 * size the layout gives it (9 + 4 sqrt(degree) layout units), never below 1.5 px nor above 20 px. Zooming in
 * grows it with the square root of the zoom (sigma's default), so neighbours do not merge. */
export function nodeSize(degree, scale) {
  const s = scale > 0 ? scale : 1;
  return Math.min(20, Math.max(1.5, (9 + 4 * Math.sqrt(Math.max(degree, 0))) * s));
}

/** A relation's width in pixels: flagged ones 2.5, co-occurrence 0.8, the rest 1 + 0.3 per supporting mention (5 at most). */
export function edgeWidth(edge) {
  if (edge.review) return 2.5;
  if (edge.weak) return 0.8;
  return 1 + Math.min(Math.max(edge.support || 0, 0), 5) * 0.3;
}

/** The drawn size (px) from which a label shows: just above the largest entity outside the `labelled` most
 * connected ones, so at the fitted zoom only those carry a label and the others appear as zooming in enlarges
 * them (most connected first). `sizes` is [[rank, size]]. */
export function labelThreshold(sizes, labelled) {
  let most = 0;
  for (const [rank, size] of sizes) if (rank >= labelled && size > most) most = size;
  return Math.max(4, most * 1.05);
}

/** A camera ratio (1 = the whole graph) that fits a box of `w` x `h` pixels, as drawn at ratio 1, into a
 * `width` x `height` viewport with `margin` pixels on each side; never closer than 0.005. */
export function fitRatio(w, h, width, height, margin = 60) {
  const room = (n) => Math.max(n - 2 * margin, n / 2, 1);
  return Math.max(0.005, Math.max(w / room(width), h / room(height)));
}

/** Are frames slow to draw? The median of the latest frame costs (ms from a draw to the next frame) is above
 * two frames at 60 Hz. With no measurement yet, yes (the safe assumption). */
export function frameIsSlow(costs) {
  if (!costs.length) return true;
  const sorted = [...costs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] > 33;
}

/** `#rrggbb` as if drawn with opacity `alpha` (0..1) on white, as an opaque `#rrggbb`; other colours as they are. */
export function onWhite(colour, alpha) {
  if (!/^#[0-9a-fA-F]{6}$/.test(colour)) return colour;
  const a = Math.min(Math.max(alpha, 0), 1);
  return "#" + [1, 3, 5].map((i) => Math.round(255 - (255 - parseInt(colour.slice(i, i + 2), 16)) * a).toString(16).padStart(2, "0")).join("");
}

/** The zoom that fits `nodes` ({x, y}) into a width x height box with a margin. */
export function fitScale(nodes, width, height, margin = 60) {
  if (!nodes.length) return 1;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (const n of nodes) {
    x0 = Math.min(x0, n.x); x1 = Math.max(x1, n.x); y0 = Math.min(y0, n.y); y1 = Math.max(y1, n.y);
  }
  return Math.min(width / (x1 - x0 + 2 * margin), height / (y1 - y0 + 2 * margin), 2);
}
