// Slice 1 <-> 10 (starts/ends/axes attributes -> inputs, steps added) and TopK 1 <-> 10 (`k`
// attribute -> the K input, a 1-D int64 tensor of one element).

import { attr } from "../../ir/index.js";
import type { Node } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import {
  constantValues,
  int64Constant,
  intAttr,
  intsAttr,
  trimInputs,
  withAttributes,
  nodeWithoutAttributes,
} from "./build.js";

const sliceUp: Adapter = (c: AdapterContext) => {
  const base = c.node.outputs[0] || "slice";
  const out: Node[] = [];
  const inputs = [c.node.inputs[0]!];
  for (const name of ["starts", "ends", "axes"]) {
    const v = intsAttr(c, name);
    if (!v) {
      if (name !== "axes") c.fail(`the required '${name}' attribute is missing`);
      continue;
    }
    const [k, n] = int64Constant(c, `${base}_${name}`, v);
    out.push(k);
    inputs.push(n);
  }
  const n = nodeWithoutAttributes(c.node, "starts", "ends", "axes");
  n.inputs = inputs;
  out.push(n);
  return out;
};

const sliceDown: Adapter = (c: AdapterContext) => {
  const starts = constantValues(c, 1, "'starts'")!;
  const ends = constantValues(c, 2, "'ends'")!;
  const axes = constantValues(c, 3, "'axes'");
  const steps = constantValues(c, 4, "'steps'");
  if (steps && steps.some((s) => s !== 1))
    c.fail(`steps [${steps.join(", ")}] cannot be expressed before Slice-10 (only step 1)`);
  const n = withAttributes(c.node, {
    starts: attr("starts", starts, "INTS"),
    ends: attr("ends", ends, "INTS"),
    ...(axes ? { axes: attr("axes", axes, "INTS") } : {}),
  });
  n.inputs = [c.node.inputs[0]!];
  return [n];
};

const topkUp: Adapter = (c: AdapterContext) => {
  const k = intAttr(c, "k");
  if (k === undefined) c.fail("the required 'k' attribute is missing");
  const [kn, name] = int64Constant(c, `${c.node.outputs[0] || "topk"}_k`, [k]);
  const n = nodeWithoutAttributes(c.node, "k");
  n.inputs = [c.node.inputs[0]!, name];
  return [kn, n];
};

const topkDown: Adapter = (c: AdapterContext) => {
  const k = constantValues(c, 1, "'K'")!;
  if (k.length !== 1) c.fail(`K must hold one value, it holds ${k.length}`);
  const n = withAttributes(c.node, { k: attr("k", k[0]!) });
  n.inputs = trimInputs([c.node.inputs[0]!]);
  return [n];
};

export const SLICE_ROWS: AdapterRow[] = [
  {
    domain: "",
    op: "Slice",
    from: 1,
    to: 10,
    summary: "starts/ends/axes attributes -> constant inputs",
    adapter: sliceUp,
  },
  {
    domain: "",
    op: "Slice",
    from: 10,
    to: 1,
    summary: "constant starts/ends/axes inputs -> attributes; steps other than 1 block",
    adapter: sliceDown,
  },
];

export const TOPK_ROWS: AdapterRow[] = [
  {
    domain: "",
    op: "TopK",
    from: 1,
    to: 10,
    summary: "k attribute -> constant K input",
    adapter: topkUp,
  },
  {
    domain: "",
    op: "TopK",
    from: 10,
    to: 1,
    summary: "constant K input -> k attribute",
    adapter: topkDown,
  },
];
