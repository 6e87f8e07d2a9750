// A model's summary (IR version, opsets, inputs/outputs, op histogram, sizes): `info` on the
// command line and the summary of the web page.

import { dtypeName } from "./dtype.js";
import { countSubgraphs, someGraphNode, walkTensors } from "./visit.js";
import type { Model, Node } from "./types.js";

export interface ModelInfo {
  fileBytes: number;
  irVersion: number;
  opsetImports: { domain: string; version: number }[];
  producer?: string;
  graphName?: string;
  inputs: string[];
  outputs: string[];
  nodes: number;
  subgraphs: number;
  functions: string[];
  ops: Record<string, number>;
  initializers: number;
  /** Bytes of tensor data held in the model file (in memory, or in ranges of a large file). */
  tensorBytes: number;
  externalTensors: number;
  /** Bytes of tensor data in external data files (as far as they were opened). */
  externalBytes: number;
}

export function typeText(t: Model["graph"]["inputs"][number]["type"]): string {
  if (!t) return "?";
  if (t.kind === "tensor" || t.kind === "sparse_tensor") {
    const shape = t.shape
      ? `[${t.shape.map((d) => (d === null ? "?" : String(d))).join(",")}]`
      : "";
    return `${t.kind === "sparse_tensor" ? "sparse " : ""}${dtypeName(t.elemType)}${shape}`;
  }
  return t.kind;
}

export function modelInfo(model: Model, fileBytes: number): ModelInfo {
  const ops: Record<string, number> = Object.create(null);
  let nodes = 0;
  // Plain callbacks, not the generator walks: `info` on a model of 100,000 nodes spent ~100 ms
  // there (an object for every node at every level).
  const count = (node: Node): void => {
    const key =
      node.domain && node.domain !== "ai.onnx" ? `${node.domain}.${node.opType}` : node.opType;
    ops[key] = (ops[key] ?? 0) + 1;
    nodes++;
  };
  someGraphNode(model.graph, count);
  for (const f of model.functions) someGraphNode(f, count);
  let subgraphs = countSubgraphs(model.graph);
  for (const f of model.functions) subgraphs += countSubgraphs(f);
  let tensorBytes = 0;
  let externalTensors = 0;
  let externalBytes = 0;
  for (const t of walkTensors(model)) {
    if (t.data.kind === "external") {
      externalTensors++;
      externalBytes += Math.max(0, t.byteLength);
    } else tensorBytes += Math.max(0, t.byteLength);
  }
  const sorted = Object.fromEntries(
    Object.entries(ops).sort((a, b) => b[1] - a[1] || nameOrder(a[0], b[0])),
  );
  return {
    fileBytes,
    irVersion: model.irVersion,
    opsetImports: model.opsetImports,
    ...(model.producerName
      ? { producer: `${model.producerName} ${model.producerVersion ?? ""}`.trim() }
      : {}),
    ...(model.graph.name ? { graphName: model.graph.name } : {}),
    inputs: model.graph.inputs.map((v) => `${v.name}: ${typeText(v.type)}`),
    outputs: model.graph.outputs.map((v) => `${v.name}: ${typeText(v.type)}`),
    nodes,
    subgraphs,
    functions: model.functions.map((f) => `${f.domain}.${f.name}`),
    ops: sorted,
    initializers: model.graph.initializers.length,
    tensorBytes,
    externalTensors,
    externalBytes,
  };
}

/** Punctuation in the order of Unicode's default collation, which `localeCompare` follows. */
const PUNCTUATION = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

/** A character's place at the first level of that collation: punctuation, digits, letters (any case). */
function primary(c: number): number {
  if (c >= 97 && c <= 122) return 2000 + c;
  if (c >= 65 && c <= 90) return 2032 + c;
  if (c >= 48 && c <= 57) return 1000 + c;
  const p = PUNCTUATION.indexOf(String.fromCharCode(c));
  return p >= 0 ? p : 500 + c;
}

/**
 * Op names in the order `localeCompare` gives them (punctuation, then digits, then letters
 * ignoring case; a prefix first; lower case first on a tie) without starting ICU (~13 ms of
 * `info`'s start).
 */
function nameOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = primary(a.charCodeAt(i)) - primary(b.charCodeAt(i));
    if (d !== 0) return d;
  }
  if (a.length !== b.length) return a.length - b.length;
  return a === b ? 0 : a < b ? 1 : -1;
}
