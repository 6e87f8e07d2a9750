// Scan 8 <-> 9. Scan-8 runs over a batch: every input has a leading batch axis (states [B, ...],
// scan inputs [B, T, ...]) and `sequence_lens` may shorten each batch entry's sequence. Scan-9 has
// no batch and scans along axis 0 (by default).
// Up: an outer Scan-9 iterates over the batch axis of every input and runs, per batch entry,
// an inner Scan-9 with the original body; stacking the inner results along a new axis 0 gives
// Scan-8's [B, ...] outputs. Sequence lengths other than the full length block.
// Down: with axes and output directions at their defaults, each input gets a batch axis of 1
// (Unsqueeze), Scan-8 runs, and the batch axis is removed again (Squeeze).

import { attr, getAttr } from "../../ir/index.js";
import type { Graph, Node, ValueInfo } from "../../ir/types.js";
import type { Adapter, AdapterContext, AdapterRow } from "../adapter.js";
import { row } from "./kit.js";
import { constantValues, intAttr, intsAttr, opNode, tensorTypeOf } from "./nodes.js";

const up: Adapter = (c: AdapterContext) => {
  const body = getAttr(c.node, "body");
  if (!body || body.type !== "GRAPH" || !body.value) c.fail("the 'body' graph is missing");
  const m = intAttr(c, "num_scan_inputs");
  if (m === undefined) c.fail("the required 'num_scan_inputs' attribute is missing");
  const inputs = c.node.inputs.slice(1);
  const seqLens = c.node.inputs[0] ?? "";
  if (seqLens !== "") {
    const lens = constantValues(c, 0, "'sequence_lens'")!;
    const first = inputs[inputs.length - m];
    const shape =
      first !== undefined ? tensorTypeOf(c, c.node.inputs.indexOf(first))?.shape : undefined;
    const full = shape?.[1];
    if (typeof full !== "number" || lens.some((l) => l !== full))
      c.fail(
        "sequence_lens shorter than the full sequence (or of an unknown one) has no Scan-9 form",
      );
  }
  const outer = c.node.outputs[0] || "scan";
  // The outer body: one input per Scan-8 input (a batch entry), the inner Scan-9, its outputs.
  const perEntry: ValueInfo[] = inputs.map((x, i) => {
    const t = tensorTypeOf(c, i + 1);
    const name = c.fresh(`${x}_entry`);
    return t?.shape
      ? { name, type: { kind: "tensor", elemType: t.elemType, shape: t.shape.slice(1) } }
      : t
        ? { name, type: { kind: "tensor", elemType: t.elemType } }
        : { name };
  });
  const innerOuts = c.node.outputs.map((y) => c.fresh(`${y}_entry`));
  const directions = intsAttr(c, "directions");
  const inner: Node = {
    opType: "Scan",
    domain: "",
    inputs: perEntry.map((v) => v.name),
    outputs: innerOuts,
    attributes: [
      body,
      attr("num_scan_inputs", m),
      ...(directions ? [attr("scan_input_directions", directions, "INTS")] : []),
    ],
  };
  const g: Graph = {
    name: `${outer}_batch_entry`,
    nodes: [inner],
    inputs: perEntry,
    outputs: innerOuts.map((name) => ({ name })),
    initializers: [],
    sparseInitializers: [],
    valueInfo: [],
  };
  const n: Node = {
    ...c.node,
    inputs,
    outputs: [...c.node.outputs],
    attributes: [attr("body", g), attr("num_scan_inputs", inputs.length)],
  };
  return [n];
};

const down: Adapter = (c: AdapterContext) => {
  const m = intAttr(c, "num_scan_inputs");
  if (m === undefined) c.fail("the required 'num_scan_inputs' attribute is missing");
  for (const name of ["scan_input_axes", "scan_output_axes", "scan_output_directions"]) {
    const v = intsAttr(c, name);
    if (v && v.some((x) => x !== 0))
      c.fail(`${name} [${v.join(", ")}] has no Scan-8 form (axis 0, forward only)`);
  }
  const out: Node[] = [];
  const batched = c.node.inputs.map((x) => {
    const b = c.fresh(`${x}_batch`);
    out.push(opNode(c, "Unsqueeze", [x], [b], { axes: [0] }));
    return b;
  });
  const outs = c.node.outputs.map((y) => (y === "" ? "" : c.fresh(`${y}_batch`)));
  const directions = intsAttr(c, "scan_input_directions");
  out.push({
    ...c.node,
    inputs: ["", ...batched],
    outputs: outs,
    attributes: [
      getAttr(c.node, "body")!,
      attr("num_scan_inputs", m),
      ...(directions ? [attr("directions", directions, "INTS")] : []),
    ],
  });
  c.node.outputs.forEach((y, i) => {
    if (y !== "") out.push(opNode(c, "Squeeze", [outs[i]!], [y], { axes: [0] }));
  });
  return out;
};

// For the type check, Scan-8's inputs sit one further than Scan-9's (after sequence_lens).
export const rows: AdapterRow[] = [
  row(
    "Scan",
    8,
    9,
    "the batch axis becomes an outer Scan-9 over batch entries around the inner Scan-9",
    up,
    { inputOffset: -1 },
  ),
  row(
    "Scan",
    9,
    8,
    "a batch axis of 1 added (Unsqueeze) and removed (Squeeze); axes/output directions must be defaults",
    down,
    { inputOffset: 1 },
  ),
];
