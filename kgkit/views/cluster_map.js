// ClusterMap front end: draws the points as SVG, drag a box to select (shift extends), click a point to
// toggle it; writes the `selected` trait. Names are set with textContent only.
import { box, inBox, layout, select, toggle } from "./cluster_map_logic.js";

const NS = "http://www.w3.org/2000/svg";

function svgNode(tag, attrs) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

function draw(el, model) {
  const points = model.get("points") || [];
  const pairs = model.get("pairs") || [];
  const selected = model.get("selected") || [];
  const width = model.get("width") || 760;
  const height = model.get("height") || 520;
  const screen = layout(points, width, height);
  const chosen = new Set(selected);
  el.replaceChildren();
  const head = document.createElement("div");
  head.style.font = "12px system-ui,sans-serif";
  head.textContent = `${points.length} entities · ${selected.length} selected · drag a box to select (shift adds), click a point to toggle`;
  const clear = document.createElement("button");
  clear.textContent = "clear selection";
  clear.setAttribute("data-action", "clear");
  clear.style.marginLeft = "8px";
  clear.addEventListener("click", () => { model.set("selected", []); model.save_changes(); });
  head.append(clear);
  const svg = svgNode("svg", { width, height, viewBox: `0 0 ${width} ${height}`, style: "background:#fff;border:1px solid #ddd;user-select:none" });
  for (const [i, j] of pairs) {
    if (screen[i] && screen[j]) {
      svg.append(svgNode("line", { x1: screen[i].sx, y1: screen[i].sy, x2: screen[j].sx, y2: screen[j].sy, stroke: "#d62728", "stroke-width": 1.5 }));
    }
  }
  points.forEach((p, i) => {
    const on = chosen.has(p.id);
    const c = svgNode("circle", { cx: screen[i].sx, cy: screen[i].sy, r: on ? 6 : 4, fill: p.colour,
      stroke: on ? "#000" : p.candidate ? "#d62728" : "#fff", "stroke-width": on || p.candidate ? 2 : 0.5, "data-id": p.id });
    const t = svgNode("title", {});
    t.textContent = `${p.name} (${p.group})`;
    c.append(t);
    c.addEventListener("mousedown", (e) => e.stopPropagation());
    c.addEventListener("click", () => { model.set("selected", toggle(model.get("selected") || [], p.id)); model.save_changes(); });
    svg.append(c);
  });
  const rect = svgNode("rect", { fill: "#4e79a722", stroke: "#4e79a7", visibility: "hidden" });
  svg.append(rect);
  let start = null;
  const at = (e) => { const r = svg.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; };
  svg.addEventListener("mousedown", (e) => { start = at(e); });
  svg.addEventListener("mousemove", (e) => {
    if (!start) return;
    const b = box(start, at(e));
    Object.entries({ x: b.x0, y: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0, visibility: "visible" })
      .forEach(([k, v]) => rect.setAttribute(k, String(v)));
  });
  svg.addEventListener("mouseup", (e) => {
    if (!start) return;
    const b = box(start, at(e));
    start = null;
    rect.setAttribute("visibility", "hidden");
    if (b.x1 - b.x0 < 3 && b.y1 - b.y0 < 3) return;
    model.set("selected", select(model.get("selected") || [], inBox(points, screen, b), e.shiftKey));
    model.save_changes();
  });
  el.append(head, svg);
}

function render({ model, el }) {
  const redraw = () => draw(el, model);
  redraw();
  const names = ["points", "pairs", "selected", "width", "height"];
  for (const n of names) model.on(`change:${n}`, redraw);
  return () => { for (const n of names) model.off(`change:${n}`, redraw); };
}

export default { render };
