// kgkit's graph explorer renderer: sigma.js (WebGL) + graphology, bundled as one IIFE whose global is KGKIT_SIGMA.
export { default as Sigma } from "sigma";
export { EdgeArrowProgram, EdgeLineProgram, EdgeRectangleProgram, NodeCircleProgram, NodePointProgram } from "sigma/rendering";
export { default as Graph } from "graphology";
