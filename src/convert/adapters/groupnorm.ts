// GroupNormalization 18 <-> 21: scale and bias have one value per group in 18 and one per channel
// in 21. Up, the node is normalised with a neutral scale (1) and bias (0) and the per-group affine
// part is applied after it on a [N, G, -1] view. Down, GroupNormalization-18 being deprecated, the
// node is written out in primitive ops.

import { Tensor } from "../../ir/tensor.js";
import type { Node } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import {
  elemTypeOf,
  floatAttr,
  nodeSequence,
  intAttr,
  numberConstant,
  opNode,
  rankOf,
  withAttributes,
} from "./nodes.js";
import { row } from "./kit.js";

const up: Adapter = (c: AdapterContext) => {
  const [x, scale, bias] = c.node.inputs as [string, string, string];
  const y = c.node.outputs[0]!;
  const elem = elemTypeOf(c, 0, "for the neutral scale and bias");
  const groups = intAttr(c, "num_groups");
  if (groups === undefined) c.fail("the required 'num_groups' attribute is missing");
  const seq = nodeSequence(c, y);
  const out = seq.nodes;
  const name = seq.name;
  const k = seq.ints;
  const channels = name("channels");
  out.push(opNode(c, "Shape", [x], [channels], { start: 1, end: 2 }));
  const ones = name("ones");
  const zeros = name("zeros");
  out.push(
    opNode(c, "ConstantOfShape", [channels], [ones], { value: Tensor.from(elem, [1], [1]) }),
    opNode(c, "ConstantOfShape", [channels], [zeros], { value: Tensor.from(elem, [1], [0]) }),
  );
  const normed = name("normalized");
  const gn = withAttributes(c.node, {});
  gn.inputs = [x, ones, zeros];
  gn.outputs = [normed];
  out.push(gn);
  const view = name("grouped");
  out.push(opNode(c, "Reshape", [normed, k("group_shape", [0, groups, -1])], [view]));
  const axes = k("axes", [1]);
  const s = name("scale");
  const b = name("bias");
  out.push(opNode(c, "Unsqueeze", [scale, axes], [s]), opNode(c, "Unsqueeze", [bias, axes], [b]));
  const scaled = name("scaled");
  const shifted = name("shifted");
  out.push(opNode(c, "Mul", [view, s], [scaled]), opNode(c, "Add", [scaled, b], [shifted]));
  const shape = name("shape");
  out.push(opNode(c, "Shape", [x], [shape]), opNode(c, "Reshape", [shifted, shape], [y]));
  return out;
};

/**
 * 21 -> 18: GroupNormalization-18 is deprecated, so the node is written out in primitive ops:
 * mean and (biased) variance per group on a [N, G, -1] view, then the per-channel scale/bias.
 */
const down: Adapter = (c: AdapterContext) => {
  const [x, scale, bias] = c.node.inputs as [string, string, string];
  const y = c.node.outputs[0]!;
  const elem = elemTypeOf(c, 0, "for the epsilon constant");
  const rank = rankOf(c, 0);
  if (rank === undefined)
    c.fail("the input's rank is unknown (needed to apply the per-channel scale)");
  const groups = intAttr(c, "num_groups");
  if (groups === undefined) c.fail("the required 'num_groups' attribute is missing");
  const eps = floatAttr(c, "epsilon")!;
  const seq = nodeSequence(c, y);
  const out = seq.nodes;
  const k = seq.ints;
  const op = seq.op;
  const shape = op("Shape", [x], "shape");
  const grouped = op("Reshape", [x, k("group_shape", [0, groups, -1])], "grouped");
  const axes = k("axes", [2]);
  const mean = op("ReduceMean", [grouped, axes], "mean");
  const centred = op("Sub", [grouped, mean], "centred");
  const squares = op("Mul", [centred, centred], "squares");
  const variance = op("ReduceMean", [squares, axes], "variance");
  const [ke, epsName] = numberConstant(c, `${y}_epsilon`, elem, [eps]);
  out.push(ke);
  const std = op("Sqrt", [op("Add", [variance, epsName], "variance_eps")], "std");
  const normed = op(
    "Reshape",
    [op("Div", [centred, std], "normalized_grouped"), shape],
    "normalized",
  );
  let s = scale;
  let b = bias;
  if (rank > 2) {
    const trailing = k(
      "channel_axes",
      Array.from({ length: rank - 2 }, (_, i) => i + 1),
    );
    s = op("Unsqueeze", [scale, trailing], "scale");
    b = op("Unsqueeze", [bias, trailing], "bias");
  }
  const scaled = op("Mul", [normed, s], "scaled");
  out.push(opNode(c, "Add", [scaled, b], [y]));
  return out;
};

export const rows: AdapterRow[] = [
  row(
    "GroupNormalization",
    18,
    21,
    "per-group scale/bias applied after a neutral GroupNormalization-21, on a [N, G, -1] view",
    up,
  ),
  row(
    "GroupNormalization",
    21,
    18,
    "written out in primitive ops (GroupNormalization-18 is deprecated)",
    down,
  ),
];
