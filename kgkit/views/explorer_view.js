// Graph explorer: the drawing. sigma.js (WebGL) draws a graphology graph built from the payload; positions come
// precomputed (no physics). Names are drawn on canvases with fillText (text, never parsed as HTML).
import { edgeWidth, fitRatio, fitScale, frameIsSlow, labelThreshold, nodeSize, onWhite } from "./explorer_logic.js";

// relations above this (or entities above BIG_NODES): 1-px lines without arrows, edge labels or edge hover, and
// entities as point sprites -- the cheapest things WebGL draws (a software WebGL has to draw them too)
const BIG = 3000;
const BIG_NODES = 2000;
const FONT = "system-ui,-apple-system,'Segoe UI',Roboto,sans-serif";

function sigmaLibrary() {
  // eslint-disable-next-line no-undef
  const lib = typeof KGKIT_SIGMA !== "undefined" ? KGKIT_SIGMA : globalThis.KGKIT_SIGMA;
  if (!lib || !lib.Sigma) throw new Error("the renderer (sigma.js) is not loaded");
  return lib;
}

/** A node's label on the canvas, with a white halo (fillText: the name is drawn as text, never parsed). */
function drawLabel(ctx, data, settings) {
  if (!data.label) return;
  const size = settings.labelSize;
  ctx.font = `${settings.labelWeight} ${size}px ${settings.labelFont}`;
  const x = data.x + data.size + 3, y = data.y + size / 3;
  ctx.lineJoin = "round";
  ctx.lineWidth = 3;
  ctx.strokeStyle = "#ffffff";
  ctx.strokeText(data.label, x, y);
  ctx.fillStyle = "#222222";
  ctx.fillText(data.label, x, y);
}

function cut(text, n) {
  const t = String(text ?? "");
  return t.length <= n ? t : t.slice(0, n - 1) + "\u2026";
}

/** Draw `payload`'s graph into `canvas` (an element with a size). `shown()` is what the filters show
 * ({nodes, edges}: Sets of ids). Returns the view: `renderer` (sigma; null without WebGL), `graph`, `big`,
 * `redraw()` after `shown` changed, `fit(ids)`, `centreOn(id)`, `highlight(nodes, edge)`, `selected()`,
 * `png()`, `stats()`, `destroy()`. */
export function drawGraph(canvas, payload, shown) {
  const lib = sigmaLibrary();
  const big = payload.edges.length > BIG || payload.nodes.length > BIG_NODES;
  const clip = cut;
  const scale = fitScale(payload.nodes, 800, 600); // the zoom (px per layout unit) that fits the layout: sizes at it
  const graph = new lib.Graph({ multi: true, type: "directed", allowSelfLoops: true });
  const sizes = [];
  for (const n of payload.nodes) {
    const size = nodeSize(n.degree, scale);
    sizes.push([n.rank, size]);
    // y flipped: the layout's y grows downwards (as on a page), sigma's upwards
    graph.addNode(n.id, { x: n.x, y: -n.y, size, color: n.colour, label: clip(n.name, 40), forceLabel: n.rank < payload.labelled });
  }
  for (const e of payload.edges) {
    const attrs = { color: big && !e.review ? onWhite(e.colour, 0.45) : e.colour, size: edgeWidth(e), type: big ? "thin" : e.weak ? "line" : "arrow" };
    if (!e.weak && !big) attrs.label = (e.review ? "\u26a0 " : "") + (e.negated ? "not " : "") + clip(e.type, 30);
    graph.addDirectedEdgeWithKey(e.id, e.source, e.target, attrs);
  }
  let selectedNodes = new Set();
  let selectedEdge = null;
  const settings = {
    allowInvalidContainer: true, // a notebook may render the widget before it is in the page: it sizes itself later
    enableCameraRotation: false, zIndex: false, minCameraRatio: 0.005, maxCameraRatio: 4,
    stagePadding: 24 + sizes.reduce((m, [, s]) => Math.max(m, s), 0), // the largest entity whole at the edge
    defaultNodeType: big ? "point" : "circle",
    nodeProgramClasses: { circle: lib.NodeCircleProgram, point: lib.NodePointProgram },
    edgeProgramClasses: { arrow: lib.EdgeArrowProgram, line: lib.EdgeRectangleProgram, thin: lib.EdgeLineProgram },
    renderEdgeLabels: !big, enableEdgeEvents: !big, minEdgeThickness: 0.8,
    labelFont: FONT, labelSize: 12, labelWeight: "500", labelColor: { color: "#222222" },
    edgeLabelFont: FONT, edgeLabelSize: 10, edgeLabelWeight: "normal", edgeLabelColor: { color: "#555555" },
    // the most connected entities are labelled at the fitted zoom (forceLabel); the rest as zooming makes them bigger
    labelRenderedSizeThreshold: labelThreshold(sizes, payload.labelled), labelDensity: 0.8, labelGridCellSize: 120,
    defaultDrawNodeLabel: drawLabel,
    nodeReducer: (id, a) => {
      if (!shown().nodes.has(id)) a.hidden = true;
      else if (selectedNodes.has(id)) { a.highlighted = true; a.forceLabel = true; }
      return a;
    },
    edgeReducer: (id, a) => {
      if (!shown().edges.has(id)) a.hidden = true;
      else if (id === selectedEdge) { a.color = "#4a4f55"; a.size = (a.size || 1) + 1.5; a.forceLabel = true; }
      return a;
    },
  };
  performance.mark("kgx:graph");
  let renderer = null;
  try {
    renderer = new lib.Sigma(graph, canvas, settings);
  } catch (err) { // no WebGL (switched off, or a browser without it): the rest of the explorer still works
    const note = document.createElement("p");
    note.className = "kgx-nogl";
    note.setAttribute("data-role", "no-webgl");
    note.textContent = `The graph cannot be drawn in this browser (${err && err.message ? err.message : err}). ` +
      "Search, filters, details and the SVG export still work.";
    canvas.append(note);
  }
  performance.mark("kgx:renderer");

  // Moving the view: when frames are slow to draw (a software WebGL, thousands of relations), a drag or a zoom
  // moves the last picture (a CSS transform of the drawn layers) and draws anew once the view stops moving;
  // when they are quick, every move is drawn. A draw's cost is its main-thread time plus the time the WebGL
  // work takes (a one-pixel read waits for it); while every move is drawn, the spacing of the draws.
  const frameCosts = [];
  let slow = true; // until a frame has been timed
  let moved = false;
  let settleTimer = 0;
  let renders = 0;
  let live = 0; // time of the last draw of a live move (0: not moving)
  const pixel = new Uint8Array(4);
  const layers = renderer ? Object.entries(renderer.getCanvases()).filter(([k]) => k !== "mouse").map(([, c]) => c) : [];
  const record = (cost) => {
    frameCosts.push(cost);
    if (frameCosts.length > 40) frameCosts.shift();
    slow = frameIsSlow(frameCosts.slice(-3));
  };
  function webglWait() {
    const t = performance.now();
    for (const gl of Object.values(renderer.webGLContexts)) {
      gl.bindFramebuffer(gl.FRAMEBUFFER, null);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    }
    return performance.now() - t;
  }
  // the last picture as one canvas (every layer copied right after a slow draw): a move shows and moves it alone,
  // one layer for the compositor instead of seven
  const still = document.createElement("canvas");
  still.className = "kgx-still";
  still.style.cssText = "position:absolute;left:0;top:0;display:none;pointer-events:none;transform-origin:0 0";
  let stillFresh = false;
  function keepStill() {
    const { width, height } = renderer.getDimensions();
    const ratio = window.devicePixelRatio || 1;
    still.width = Math.round(width * ratio);
    still.height = Math.round(height * ratio);
    still.style.width = `${width}px`;
    still.style.height = `${height}px`;
    const ctx = still.getContext("2d");
    for (const layer of layers) ctx.drawImage(layer, 0, 0, still.width, still.height);
    stillFresh = true;
  }
  function moveLastPicture() {
    const { width, height } = renderer.getDimensions();
    const state = renderer.getCamera().getState();
    const from = { matrix: renderer.invMatrix }; // what the last drawn picture shows
    const a = renderer.framedGraphToViewport(renderer.viewportToFramedGraph({ x: 0, y: 0 }, from), { cameraState: state });
    const b = renderer.framedGraphToViewport(renderer.viewportToFramedGraph({ x: width, y: height }, from), { cameraState: state });
    const s = width ? (b.x - a.x) / width : 1;
    const transform = `translate(${a.x}px,${a.y}px) scale(${s})`;
    if (stillFresh) {
      if (!moved) { still.style.display = "block"; for (const c of layers) c.style.visibility = "hidden"; }
      still.style.transform = transform;
    } else {
      for (const c of layers) { c.style.transformOrigin = "0 0"; c.style.transform = transform; }
    }
    moved = true;
  }
  function settle() {
    const captor = renderer.getMouseCaptor();
    if (captor.isMouseDown || renderer.getCamera().isAnimated()) { settleTimer = setTimeout(settle, 50); return; }
    settleTimer = 0;
    renderer.render();
  }
  if (renderer) {
    // no picking while the button is down or the picture is moved: the picking buffers are those of the last
    // draw (a moved picture would pick wrong), and each pick waits for the WebGL work (a drag would stutter)
    const quiet = () => !moved && !renderer.getMouseCaptor().isMouseDown;
    const pickNode = renderer.getNodeAtPosition.bind(renderer), pickEdge = renderer.getEdgeAtPoint.bind(renderer);
    renderer.getNodeAtPosition = (at) => (quiet() ? pickNode(at) : null);
    renderer.getEdgeAtPoint = (x, y) => (quiet() ? pickEdge(x, y) : null);
    canvas.insertBefore(still, renderer.getCanvases().mouse);
    record(webglWait() + 1); // the first frame (drawn by the constructor), shaders compiled
    if (slow) keepStill();
    const camera = renderer.getCamera();
    let start = 0;
    camera.removeListener("updated", renderer.activeListeners.camera);
    camera.on("updated", () => {
      if (!slow) {
        live = live || performance.now();
        renderer.scheduleRender();
        clearTimeout(settleTimer);
        settleTimer = setTimeout(() => { live = 0; settleTimer = 0; }, 150);
        return;
      }
      moveLastPicture();
      clearTimeout(settleTimer);
      settleTimer = setTimeout(settle, 120);
    });
    renderer.on("beforeRender", () => { start = performance.now(); });
    renderer.on("afterRender", () => {
      renders += 1;
      if (moved) {
        for (const c of layers) { c.style.transform = ""; c.style.visibility = ""; }
        still.style.display = "none";
        moved = false;
      }
      stillFresh = false;
      if (live) { // a live move: the spacing of its draws
        const now = performance.now();
        if (now - live < 1000 && now > live) record(now - live);
        live = now;
        return;
      }
      if (settleTimer) { clearTimeout(settleTimer); settleTimer = 0; }
      record(performance.now() - start + webglWait());
      if (slow) keepStill(); // the WebGL layers still hold this draw: copy them now
    });
  }

  /** Move the camera and draw at once (no animation). */
  function look(cameraState) {
    if (!renderer) return;
    renderer.getCamera().setState(cameraState);
    renderer.render();
  }

  /** Draw again after `shown` changed (the reducers run on every item). */
  function redraw() {
    if (renderer) renderer.refresh();
  }

  /** The camera that shows `ids` (layout ids) with a margin; one entity: its neighbourhood's scale. */
  function cameraFor(ids) {
    const pts = ids.map((id) => renderer.getNodeDisplayData(id)).filter(Boolean);
    if (!pts.length) return { x: 0.5, y: 0.5, ratio: 1, angle: 0 };
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const p of pts) { x0 = Math.min(x0, p.x); x1 = Math.max(x1, p.x); y0 = Math.min(y0, p.y); y1 = Math.max(y1, p.y); }
    const centre = { x: (x0 + x1) / 2, y: (y0 + y1) / 2 };
    const at1 = { cameraState: { ...centre, ratio: 1, angle: 0 } };
    const a = renderer.framedGraphToViewport({ x: x0, y: y0 }, at1), b = renderer.framedGraphToViewport({ x: x1, y: y1 }, at1);
    const { width, height } = renderer.getDimensions();
    const single = Math.min(1, Math.max(0.02, Math.sqrt(150 / Math.max(payload.nodes.length, 1))));
    return { ...centre, angle: 0, ratio: pts.length > 1 ? fitRatio(Math.abs(b.x - a.x), Math.abs(b.y - a.y), width, height, 60) : single };
  }

  /** Show these entities (all when none or every one), at once. */
  function fit(ids) {
    if (!renderer) return;
    look(ids.length && ids.length < payload.nodes.length ? cameraFor(ids) : { x: 0.5, y: 0.5, ratio: 1, angle: 0 });
  }

  /** Centre on an entity, zoomed in at least to its neighbourhood's scale. */
  function centreOn(id) {
    if (!renderer || !shown().nodes.has(id)) return;
    const d = renderer.getNodeDisplayData(id);
    look({ x: d.x, y: d.y, angle: 0, ratio: Math.min(renderer.getCamera().getState().ratio, cameraFor([id]).ratio) });
  }

  /** Mark the selected entities (and relation): only they are processed again. */
  function highlight(nodes, edge = null) {
    const before = [...selectedNodes], edgeBefore = selectedEdge;
    selectedNodes = new Set(nodes);
    selectedEdge = edge;
    if (!renderer) return;
    const touched = { nodes: [...new Set([...before, ...selectedNodes])].filter((id) => graph.hasNode(id)),
      edges: [...new Set([edgeBefore, selectedEdge])].filter((id) => id !== null && graph.hasEdge(id)) };
    renderer.refresh({ partialGraph: touched, skipIndexation: true });
  }

  /** The current view as a PNG data URL: drawn now, then every layer (WebGL and 2-D) copied onto a white
   * canvas in the same task, while the WebGL drawing buffers still hold the picture. */
  function png() {
    if (!renderer) return null;
    renderer.refresh();
    const { width, height } = renderer.getDimensions();
    const ratio = window.devicePixelRatio || 1;
    const out = document.createElement("canvas");
    out.width = Math.round(width * ratio);
    out.height = Math.round(height * ratio);
    const ctx = out.getContext("2d");
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, out.width, out.height);
    for (const layer of layers) ctx.drawImage(layer, 0, 0, out.width, out.height);
    return out.toDataURL("image/png");
  }
  // the canvas's box can change (a notebook cell attached later, a window resized): draw at the new size
  let resizer = null;
  if (renderer && typeof ResizeObserver !== "undefined") {
    let first = true;
    resizer = new ResizeObserver(() => { if (first) { first = false; return; } renderer.scheduleRefresh(); });
    resizer.observe(canvas);
  }

  return {
    renderer, graph, big, redraw, fit, centreOn, highlight, png,
    selected: () => [...selectedNodes],
    /** Draws and their cost (ms: main thread + waiting for the WebGL work, or the spacing of live draws). */
    stats: () => ({ renders, frameCosts: [...frameCosts], slow, webgl: renderer !== null }),
    destroy: () => { clearTimeout(settleTimer); resizer?.disconnect(); renderer?.kill(); },
  };
}
