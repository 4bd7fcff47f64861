import { test } from "node:test";
import assert from "node:assert/strict";
import {
  activeAt, adjacency, defaultState, edgeWidth, findSpan, fitRatio, fold, frameIsSlow, labelThreshold, markTerms,
  neighbourhood, nodeSize, onWhite, popView, pushView, searchIndex, segments, shortestPath, suggest, visible,
} from "./explorer_logic.js";

const node = (id, name, type = "Person", extra = {}) => ({ id, name, type, degree: 1, aliases: [], docs: [0], community: "c0", ...extra });
const edge = (id, source, target, extra = {}) => ({ id, source, target, type: "MEETS", weak: false, review: false,
  confidence: 0.9, support: 1, docs: [0], valid_at: null, invalid_at: null, ...extra });

const payload = {
  nodes: [
    node("a", "Franklin Roosevelt", "Person", { aliases: ["FDR"], degree: 3 }),
    node("b", "Winston Churchill", "Person", { degree: 2 }),
    node("c", "Moscow", "Location", { degree: 2, docs: [1], community: "c1" }),
    node("d", "Zürich", "Location", { degree: 1, community: "c1" }),
    node("e", "Alone", "Concept", { degree: 0 }),
  ],
  edges: [
    edge("ab", "a", "b"),
    edge("ac", "a", "c", { type: "VISITED", valid_at: "1943-01-01", invalid_at: "1944-01-01", docs: [1] }),
    edge("bc", "b", "c", { type: "MENTIONED_WITH", weak: true, confidence: 0.2 }),
    edge("cd", "c", "d", { review: true, flags: ["signature_violation"] }),
  ],
};

test("fold drops case and accents", () => {
  assert.equal(fold("  Zürich  CITY "), "zurich city");
});

test("suggest ranks exact, prefix, word prefix, substring; aliases find their entity once", () => {
  const idx = searchIndex(payload.nodes);
  assert.deepEqual(suggest(idx, "fdr"), [{ id: "a", text: "FDR", alias: true }]);
  assert.deepEqual(suggest(idx, "churchill").map((s) => s.id), ["b"]);
  assert.deepEqual(suggest(idx, "zur").map((s) => s.text), ["Zürich"]);
  assert.deepEqual(suggest(idx, "c").map((s) => s.id), ["b", "c", "d"]);  // word prefix before substring
  assert.deepEqual(suggest(idx, "o").map((s) => s.id), ["a", "c", "b", "e"]);  // then by degree
  assert.deepEqual(suggest(idx, "   "), []);
});

test("type, degree, weak, review, document and community filters", () => {
  const ids = (s) => [...visible(payload, { ...defaultState(), ...s }).nodes].sort();
  const rels = (s) => [...visible(payload, { ...defaultState(), ...s }).edges].sort();
  assert.deepEqual(ids({}), ["a", "b", "c", "d", "e"]);
  assert.deepEqual(ids({ hiddenTypes: ["Location"] }), ["a", "b", "e"]);
  assert.deepEqual(rels({ hiddenTypes: ["Location"] }), ["ab"]);
  assert.deepEqual(ids({ minDegree: 2 }), ["a", "b", "c"]);
  assert.deepEqual(rels({ hideWeak: true }), ["ab", "ac", "cd"]);
  assert.deepEqual(rels({ minConfidence: 0.5 }), ["ab", "ac", "cd"]);
  assert.deepEqual(ids({ reviewOnly: true }), ["c", "d"]);
  assert.deepEqual(ids({ document: 1 }), ["c"]);
  assert.deepEqual(ids({ community: "c1" }), ["c", "d"]);
  assert.deepEqual(rels({ hiddenRelationTypes: ["MEETS"] }), ["ac", "bc"]);
});

test("the time slider keeps relations in force at the date", () => {
  const at = (t) => [...visible(payload, { ...defaultState(), time: t }).edges].sort();
  assert.deepEqual(at("1943-06-01"), ["ab", "ac", "bc", "cd"]);
  assert.deepEqual(at("1944-01-01"), ["ab", "bc", "cd"]);  // invalid from that day
  assert.deepEqual(at("1942-12-31"), ["ab", "bc", "cd"]);  // not yet valid
  assert.equal(activeAt({ valid_at: null, invalid_at: null }, "2000"), true);
});

test("focus keeps the n-hop neighbourhood over shown relations; path keeps the route", () => {
  const focus = (s) => [...visible(payload, { ...defaultState(), ...s }).nodes].sort();
  assert.deepEqual(focus({ focus: ["d"], hops: 1 }), ["c", "d"]);
  assert.deepEqual(focus({ focus: ["d"], hops: 2 }), ["a", "b", "c", "d"]);
  assert.deepEqual(focus({ focus: ["d"], hops: 2, hideWeak: true }), ["a", "c", "d"]);
  assert.deepEqual(focus({ focus: ["e"], hops: 3 }), ["e"]);
  const adj = adjacency(payload.edges);
  assert.deepEqual(shortestPath(adj, "d", "b"), ["d", "c", "b"]);
  assert.deepEqual(shortestPath(adj, "a", "e"), []);
  assert.deepEqual([...neighbourhood(adj, ["a"], 0)], ["a"]);
  const p = visible(payload, { ...defaultState(), path: ["d", "c", "b"] });
  assert.deepEqual([...p.edges].sort(), ["bc", "cd"]);
});

test("spans and marks split text without losing any of it", () => {
  assert.deepEqual(segments("Mr. Hull went", 4, 8), [
    { text: "Mr. ", mark: false }, { text: "Hull", mark: true }, { text: " went", mark: false }]);
  assert.deepEqual(segments("abc", 2, 9), [{ text: "abc", mark: false }]);
  assert.deepEqual(findSpan("Hullabaloo and hull", ["Hull"]), [15, 19]);
  const parts = markTerms("Ada met Bob; Bob left <b>", ["Bob", "Ada"]);
  assert.equal(parts.map((p) => p.text).join(""), "Ada met Bob; Bob left <b>");
  assert.deepEqual(parts.filter((p) => p.mark).map((p) => p.text), ["Ada", "Bob", "Bob"]);
});

test("history pushes new views and goes back", () => {
  let h = pushView([], { kind: "entity", id: "a" });
  h = pushView(h, { kind: "entity", id: "a" });
  h = pushView(h, { kind: "relation", id: "ab" });
  assert.equal(h.length, 2);
  assert.deepEqual(popView(h), [{ kind: "entity", id: "a" }]);
  assert.deepEqual(popView(popView(h)), [{ kind: "entity", id: "a" }]);
});

test("sizes: entities grow with degree within bounds, relations with support; flagged ones stand out", () => {
  assert.equal(nodeSize(0, 1), 9);
  assert.equal(nodeSize(4, 0.5), 8.5);
  assert.equal(nodeSize(100, 0.01), 1.5);  // never below 1.5 px
  assert.equal(nodeSize(10000, 1), 20);
  assert.ok(nodeSize(9, 0.2) > nodeSize(4, 0.2));
  assert.equal(edgeWidth({ support: 2 }), 1.6);
  assert.equal(edgeWidth({ support: 50 }), 2.5);
  assert.equal(edgeWidth({ weak: true, support: 9 }), 0.8);
  assert.equal(edgeWidth({ review: true, weak: true }), 2.5);
});

test("top entities are labelled at the fitted zoom, the rest only as zooming enlarges them", () => {
  const sizes = [[0, 20], [1, 12], [2, 10], [3, 6]];
  const t = labelThreshold(sizes, 2);  // ranks 0 and 1 carry forced labels
  assert.ok(t > 10 && t < 11);
  assert.ok(10 * Math.sqrt(1.3) >= t && 6 * Math.sqrt(1.3) < t);  // zooming in: the larger first
  assert.equal(labelThreshold([[0, 2], [5, 1.5]], 1), 4);  // at least 4 px
});

test("fit ratio, slow frames and lightened colours", () => {
  assert.equal(fitRatio(400, 100, 920, 620, 60), 0.5);  // 400 px into 800 px of room
  assert.equal(fitRatio(100, 500, 920, 620, 60), 1);
  assert.equal(fitRatio(0, 0, 920, 620), 0.005);
  assert.equal(frameIsSlow([]), true);
  assert.equal(frameIsSlow([17, 18, 90]), false);
  assert.equal(frameIsSlow([40, 17, 90]), true);
  assert.equal(onWhite("#000000", 0.4), "#999999");
  assert.equal(onWhite("#8a9097", 1), "#8a9097");
  assert.equal(onWhite("red", 0.4), "red");
});
