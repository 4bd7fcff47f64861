import { test } from "node:test";
import assert from "node:assert/strict";
import { box, inBox, layout, select, toggle } from "./cluster_map_logic.js";

const pts = [{ id: "a", x: 0, y: 0 }, { id: "b", x: 1, y: 1 }, { id: "c", x: 0.5, y: 0.2 }];

test("layout maps the extent to the padded canvas, y up", () => {
  const s = layout(pts, 120, 120, 10);
  assert.deepEqual(s[0], { sx: 10, sy: 110 });
  assert.deepEqual(s[1], { sx: 110, sy: 10 });
  assert.deepEqual(layout([], 100, 100), []);
  assert.deepEqual(layout([{ id: "z", x: 3, y: 3 }], 100, 100, 0), [{ sx: 0, sy: 100 }]);
});

test("box selection picks the points inside, in point order, from any drag direction", () => {
  const s = layout(pts, 120, 120, 10);
  assert.deepEqual(inBox(pts, s, box({ x: 120, y: 120 }, { x: 50, y: 80 })), ["c"]);
  assert.deepEqual(inBox(pts, s, box({ x: 0, y: 0 }, { x: 120, y: 120 })), ["a", "b", "c"]);
});

test("select replaces or extends, toggle flips one id, inputs are not mutated", () => {
  const sel = ["a"];
  assert.deepEqual(select(sel, ["b"]), ["b"]);
  assert.deepEqual(select(sel, ["a", "b"], true), ["a", "b"]);
  assert.deepEqual(toggle(sel, "a"), []);
  assert.deepEqual(toggle(sel, "c"), ["a", "c"]);
  assert.deepEqual(sel, ["a"]);
});
