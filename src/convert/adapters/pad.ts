// Pad 2 <-> 11 (pads and value attributes -> inputs), 18 -> 13 (the axes input goes: pads are
// spread over every axis) and 19 -> 18 (`wrap` mode does not exist before 19).

import { attr } from "../../ir/index.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import {
  constantValues,
  elemTypeOf,
  floatAttr,
  int64Constant,
  intsAttr,
  normAxis,
  numberConstant,
  rankOf,
  stringAttr,
  trimInputs,
  withAttributes,
  nodeWithoutAttributes,
  nodeSequence,
} from "./nodes.js";
import { row } from "./kit.js";
import type { Node } from "../../ir/types.js";

const up11: Adapter = (c: AdapterContext) => {
  const pads = intsAttr(c, "pads");
  if (!pads) c.fail("the required 'pads' attribute is missing");
  const base = c.node.outputs[0] || "pad";
  const out: Node[] = [];
  const [kp, padsName] = int64Constant(c, `${base}_pads`, pads);
  out.push(kp);
  const n = nodeWithoutAttributes(c.node, "pads", "value");
  n.inputs = [c.node.inputs[0]!, padsName];
  const value = floatAttr(c, "value") ?? 0;
  if (value !== 0 && (stringAttr(c, "mode") ?? "constant") === "constant") {
    const [kv, valueName] = numberConstant(
      c,
      `${base}_value`,
      elemTypeOf(c, 0, "for the constant_value input"),
      [value],
    );
    out.push(kv);
    n.inputs.push(valueName);
  }
  out.push(n);
  return out;
};

const down2: Adapter = (c: AdapterContext) => {
  const pads = constantValues(c, 1, "'pads'")!;
  const value = constantValues(c, 2, "'constant_value'");
  const n = withAttributes(c.node, {
    pads: attr("pads", pads, "INTS"),
    ...(value !== undefined && value[0] !== 0 ? { value: attr("value", value[0]!, "FLOAT") } : {}),
  });
  n.inputs = [c.node.inputs[0]!];
  return [n];
};

/**
 * 18 -> 13: pads given for some axes are spread over all of them (zeros elsewhere); pads computed
 * at run time (as in Attention-23's body) are spread by a Gather from them and an appended 0.
 */
const down13: Adapter = (c: AdapterContext) => {
  if ((c.node.inputs[3] ?? "") === "") return undefined;
  const axes = constantValues(c, 3, "'axes'")!;
  const rank = rankOf(c, 0);
  if (rank === undefined)
    c.fail("the axes input needs the data's rank to be spread over every axis");
  // Where each of the full pads comes from: pads[i], or the 0 after the last (2 * axes.length).
  const from = new Array<number>(2 * rank).fill(2 * axes.length);
  axes.forEach((a, i) => {
    const ax = normAxis(a, rank);
    from[ax] = i;
    from[ax + rank] = i + axes.length;
  });
  const n = withAttributes(c.node, {});
  const base = c.node.outputs[0] || "pad";
  const given = c.constantInput(1);
  if (given) {
    const pads = [...given.values().map((v) => Number(v)), 0];
    const [k, name] = int64Constant(
      c,
      `${base}_pads`,
      from.map((i) => pads[i]!),
    );
    n.inputs = trimInputs([c.node.inputs[0]!, name, c.node.inputs[2] ?? ""]);
    return [k, n];
  }
  const seq = nodeSequence(c, base);
  const padded = seq.op("Concat", [c.node.inputs[1]!, seq.ints("zero", [0])], "pads_0", {
    axis: 0,
  });
  const full = seq.op("Gather", [padded, seq.ints("pads_from", from)], "pads", { axis: 0 });
  n.inputs = trimInputs([c.node.inputs[0]!, full, c.node.inputs[2] ?? ""]);
  return [...seq.nodes, n];
};

const down18: Adapter = (c: AdapterContext) => {
  if (stringAttr(c, "mode") === "wrap") c.fail("mode 'wrap' does not exist before Pad-19");
  return undefined;
};

export const rows: AdapterRow[] = [
  row("Pad", 2, 11, "pads/value attributes -> constant inputs", up11),
  row("Pad", 11, 2, "constant pads/constant_value inputs -> attributes", down2),
  row("Pad", 18, 13, "the axes input is spread into full pads", down13),
  row("Pad", 19, 18, "mode 'wrap' blocks", down18),
];
