// Pure functions of the ClusterMap widget (2-D embedding map with box selection). No DOM.

/**
 * @typedef {Object} Point
 * @property {string} id
 * @property {string} name
 * @property {string} group     the colour group (type, community or cluster)
 * @property {string} colour    #rrggbb
 * @property {number} x
 * @property {number} y
 * @property {boolean} candidate  part of a merge-candidate pair
 */

/**
 * The synced traits.
 * @typedef {Object} Model
 * @property {Point[]} points
 * @property {number[][]} pairs   [i, j] indexes of candidate pairs
 * @property {string[]} selected  ids chosen in the chart
 * @property {number} width
 * @property {number} height
 */

/** Screen coordinates for the points, y up, with padding. @param {Point[]} points @returns {{sx: number, sy: number}[]} */
export function layout(points, width, height, pad = 20) {
  if (!points.length) return [];
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const sx = (x) => pad + ((x - x0) / (x1 - x0 || 1)) * (width - 2 * pad);
  const sy = (y) => height - pad - ((y - y0) / (y1 - y0 || 1)) * (height - 2 * pad);
  return points.map((p) => ({ sx: sx(p.x), sy: sy(p.y) }));
}

/** Normalised box from two corners. */
export function box(a, b) {
  return { x0: Math.min(a.x, b.x), y0: Math.min(a.y, b.y), x1: Math.max(a.x, b.x), y1: Math.max(a.y, b.y) };
}

/** Ids of the points whose screen position lies in the box, in point order. */
export function inBox(points, screen, b) {
  return points.filter((_, i) => screen[i].sx >= b.x0 && screen[i].sx <= b.x1 && screen[i].sy >= b.y0 && screen[i].sy <= b.y1)
    .map((p) => p.id);
}

/** A new selection: the box's ids replace it, or are added to it when `extend` (shift held). */
export function select(selected, ids, extend = false) {
  if (!extend) return ids.slice();
  const out = selected.slice();
  for (const id of ids) if (!out.includes(id)) out.push(id);
  return out;
}

/** Toggle one id in the selection. */
export function toggle(selected, id) {
  return selected.includes(id) ? selected.filter((x) => x !== id) : [...selected, id];
}
