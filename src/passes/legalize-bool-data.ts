// legalize-bool-data: a bool tensor moved (Flatten, Reshape, Gather, GatherND, Transpose, …; one output) by
// an op the target runs, but not on bool, is moved as 0 and 1 of a type it runs the op on
// (int32, else float, float16, uint32): Cast to that type before, the op, Cast back to bool
// after (onnxruntime-web 1.24.1's WebGPU Gather, GatherND, Flatten and Reshape took no bool,
// 1.30.0's C++ GatherND, Transpose and Concat none; Cast goes between bool and those types). The op only copies elements (and Pad's constant,
// cast the same way), so each output element is 0 or 1 of the one it copies, and the Cast back
// gives the same bool: the same values for every input. Where one rewritten op reads another's
// result, the 0/1 value is passed on and the Casts between them go: Cast(Cast(v, bool), T) is
// v when v holds only 0 and 1.

import { DataType, type Model, type Node } from "../ir/types.js";
import { attrInt } from "../ir/attributes.js";
import type { AttrInput } from "../ir/builder.js";
import { legalizePass, type LegalizeOptions, type Site } from "./legalize-kit.js";
import type { Pass } from "./pass.js";

const BOOL = DataType.BOOL;
/** The types a mask may be carried in, in the order tried. */
const CARRIERS = [DataType.INT32, DataType.FLOAT, DataType.FLOAT16, DataType.UINT32];

/** The ops that only move elements: the inputs that hold the data. */
export const DATA_INPUTS: Record<string, (inputs: readonly string[]) => number[]> = {
  Identity: () => [0],
  Flatten: () => [0],
  Reshape: () => [0],
  Squeeze: () => [0],
  Unsqueeze: () => [0],
  Transpose: () => [0],
  Expand: () => [0],
  Tile: () => [0],
  Slice: () => [0],
  Gather: () => [0],
  GatherND: () => [0],
  GatherElements: () => [0],
  Concat: (inputs) => inputs.map((_, i) => i),
  Pad: (inputs) => (inputs[2] ? [0, 2] : [0]),
};

/** The node's attributes as the site takes them (undefined: one of a kind not copied here). */
export function attrsOf(n: Node): Record<string, AttrInput> | undefined {
  const out: Record<string, AttrInput> = {};
  for (const a of n.attributes) {
    if (a.type === "INT" || a.type === "INTS" || a.type === "STRING")
      out[a.name] = a.value as AttrInput;
    else return undefined;
  }
  return out;
}

function carry(site: Site, made: Map<string, number>): boolean {
  const { node } = site;
  const data = DATA_INPUTS[node.opType]!(node.inputs).filter((i) => node.inputs[i]);
  if (!data.length || data.some((i) => site.elem(node.inputs[i]!) !== BOOL)) return false;
  if (node.outputs.length !== 1 || !node.outputs[0]) return false;
  if (site.takes(node.opType, BOOL) || !site.takes("Cast", BOOL)) return false;
  const t = CARRIERS.find((c) => site.takes(node.opType, c) && site.takes("Cast", c));
  const attrs = attrsOf(node);
  if (t === undefined || !attrs) return false;
  const inputs = node.inputs.map((x, i) =>
    data.includes(i) ? site.add("Cast", [x], { to: t }) : x,
  );
  const moved = site.add(node.opType, inputs, attrs);
  made.set(moved, t);
  site.add("Cast", [moved], { to: BOOL }, [node.outputs[0]]);
  return true;
}

/**
 * Cast(Cast(v, bool), T) → v where v is a 0/1 value of type T this pass made (the graph's
 * outputs stay as they are).
 */
function passOn(model: Model, made: Map<string, number>): Model {
  const g = model.graph;
  const producer = new Map<string, Node>();
  for (const n of g.nodes) for (const o of n.outputs) if (o) producer.set(o, n);
  const outputs = new Set(g.outputs.map((o) => o.name));
  const rename = new Map<string, string>();
  for (const n of g.nodes) {
    const [x, y] = [n.inputs[0], n.outputs[0]];
    if (n.opType !== "Cast" || !x || !y || outputs.has(y)) continue;
    const toBool = producer.get(x);
    if (!toBool || toBool.opType !== "Cast" || attrInt(toBool, "to") !== BOOL) continue;
    const v = toBool.inputs[0];
    if (v && made.has(v) && made.get(v) === attrInt(n, "to")) rename.set(y, v);
  }
  if (!rename.size) return model;
  const nodes = g.nodes
    .filter((n) => !(n.outputs[0] && rename.has(n.outputs[0])))
    .map((n) =>
      n.inputs.some((x) => rename.has(x))
        ? { ...n, inputs: n.inputs.map((x) => rename.get(x) ?? x) }
        : n,
    );
  return { ...model, graph: { ...g, nodes } };
}

export function legalizeBoolData(options: LegalizeOptions): Pass {
  const made = new Map<string, number>();
  const inner = legalizePass(
    "legalize-bool-data",
    Object.keys(DATA_INPUTS),
    "bool data moved as 0 and 1",
    (site) => carry(site, made),
    options,
    () => true,
  );
  return {
    name: inner.name,
    run(model, ctx) {
      made.clear();
      const r = inner.run(model, ctx);
      if (!r.ok || !r.modified) return r;
      return { ...r, model: passOn(r.model, made) };
    },
  };
}
