// Slice 1 <-> 10 (starts/ends/axes attributes -> inputs, steps added) and TopK 1 <-> 10 (`k`
// attribute -> the K input, a 1-D int64 tensor of one element).

import { attr } from "../../ir/index.js";
import type { Node } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { axisAttributeToInput, row } from "./kit.js";
import {
  constantValues,
  int64Constant,
  intsAttr,
  trimInputs,
  withAttributes,
  nodeWithoutAttributes,
} from "./nodes.js";

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

const topkDown: Adapter = (c: AdapterContext) => {
  const k = constantValues(c, 1, "'K'")!;
  if (k.length !== 1) c.fail(`K must hold one value, it holds ${k.length}`);
  const n = withAttributes(c.node, { k: attr("k", k[0]!) });
  n.inputs = trimInputs([c.node.inputs[0]!]);
  return [n];
};

export const rows: AdapterRow[] = [
  row("Slice", 1, 10, "starts/ends/axes attributes -> constant inputs", sliceUp),
  row(
    "Slice",
    10,
    1,
    "constant starts/ends/axes inputs -> attributes; steps other than 1 block",
    sliceDown,
  ),
  row(
    "TopK",
    1,
    10,
    "k attribute -> constant K input",
    axisAttributeToInput({ attribute: "k", index: 1, vector: true }),
  ),
  row("TopK", 10, 1, "constant K input -> k attribute", topkDown),
];
