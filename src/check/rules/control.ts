// Control flow: If, Loop and Scan check their bodies with the types the node passes them.

import { dtypeName } from "../../ir/dtype.js";
import { DataType, type Dim, type Type } from "../../ir/types.js";
import { hasInput } from "../../schema/facts.js";
import { formatShape, isTensor, joinTypes, tensorOf } from "../types.js";
import * as R from "./common.js";

const ifRule: R.Rule = (c) => {
  const cond = R.shapeOf(c, 0);
  if (cond && R.product(cond) !== undefined && R.product(cond) !== 1) {
    c.error(
      "shape-mismatch",
      `${R.opName(c)}: the condition must hold one element, got shape ${formatShape(cond)}`,
    );
  }
  const th = c.subgraph("then_branch", []);
  const el = c.subgraph("else_branch", []);
  const n = c.node.outputs.length;
  for (const [name, outs] of [
    ["then_branch", th],
    ["else_branch", el],
  ] as const) {
    if (outs && outs.length !== n) {
      c.error(
        "bad-subgraph",
        `${R.opName(c)}: ${name} has ${outs.length} outputs but the node has ${n}`,
      );
    }
  }
  for (let i = 0; i < n; i++) {
    const a = th?.[i];
    const b = el?.[i];
    if (isTensor(a) && isTensor(b) && a.elemType && b.elemType && a.elemType !== b.elemType) {
      c.error(
        "type-mismatch",
        `${R.opName(c)}: output ${i} is ${dtypeName(a.elemType)} in then_branch but ${dtypeName(b.elemType)} in else_branch`,
      );
    }
    c.outputs[i] = joinTypes(a, b);
  }
};

const loop: R.Rule = (c) => {
  const carried = c.inputs.slice(2);
  // Iteration number and condition: scalars, though some exporters declare them as [1].
  const bodyIn: (Type | undefined)[] = [
    tensorOf(DataType.INT64),
    tensorOf(DataType.BOOL),
    ...carried,
  ];
  const outs = c.subgraph("body", bodyIn, true);
  if (!outs) return;
  const n = carried.length;
  if (outs.length < n + 1) {
    c.error(
      "bad-subgraph",
      `${R.opName(c)}: the body has ${outs.length} outputs; it needs the condition and ${n} loop-carried values`,
    );
    return;
  }
  for (let i = 0; i < c.node.outputs.length; i++) {
    const bt = outs[i + 1];
    if (i < n) {
      // The body's type wins where they are not both tensors (e.g. optional in, sequence out).
      c.outputs[i] = bt ? joinTypes(bt, carried[i]) : carried[i];
    } else if (isTensor(bt)) {
      c.outputs[i] = tensorOf(bt.elemType, bt.shape ? [null, ...bt.shape] : undefined);
    }
  }
  if (c.node.outputs.length !== outs.length - 1) {
    c.error(
      "bad-subgraph",
      `${R.opName(c)}: the node has ${c.node.outputs.length} outputs but the body produces ${outs.length - 1} (after the condition)`,
    );
  }
};

const scan: R.Rule = (c) => {
  if (hasInput(c.schema, "sequence_lens")) {
    // Scan-8: batched, with sequence lengths; only the body is checked.
    c.subgraph("body");
    return;
  }
  const m = R.intAttr(c, "num_scan_inputs", 0);
  if (m === null || m < 1 || m > c.inputs.length) {
    if (m !== null) {
      c.error(
        "bad-attribute-value",
        `${R.opName(c)}: num_scan_inputs = ${m} does not fit ${c.inputs.length} inputs`,
      );
    }
    c.subgraph("body");
    return;
  }
  const n = c.inputs.length - m;
  const inAxes = R.intsAttr(c, "scan_input_axes") ?? [];
  const outAxes = R.intsAttr(c, "scan_output_axes") ?? [];
  const bodyIn: (Type | undefined)[] = c.inputs.slice(0, n);
  let seqLen: Dim | undefined;
  for (let j = 0; j < m; j++) {
    const t = R.tin(c, n + j);
    if (!t || !t.shape || !inAxes) {
      bodyIn.push(t ? tensorOf(t.elemType) : undefined);
      continue;
    }
    const ax = R.normAxis(c, inAxes[j] ?? 0, t.shape.length, "scan input axis");
    if (ax === undefined) return;
    if (seqLen === undefined) seqLen = t.shape[ax]!;
    bodyIn.push(
      tensorOf(
        t.elemType,
        t.shape.filter((_, i) => i !== ax),
      ),
    );
  }
  const outs = c.subgraph("body", bodyIn);
  if (!outs) return;
  for (let i = 0; i < c.node.outputs.length; i++) {
    const bt = outs[i];
    if (i < n) c.outputs[i] = joinTypes(c.inputs[i] ?? bt, bt ?? c.inputs[i]);
    else if (isTensor(bt)) {
      if (!bt.shape || !outAxes) {
        c.outputs[i] = tensorOf(bt.elemType);
        continue;
      }
      const r = bt.shape.length + 1;
      let ax = outAxes?.[i - n] ?? 0;
      if (ax < -r || ax >= r) {
        c.error(
          "axis-out-of-range",
          `${R.opName(c)}: scan output axis ${ax} is out of range for rank ${r}`,
        );
        continue;
      }
      if (ax < 0) ax += r;
      const dims = [...bt.shape];
      dims.splice(ax, 0, seqLen ?? null);
      c.outputs[i] = tensorOf(bt.elemType, dims);
    }
  }
  if (outs.length !== c.node.outputs.length) {
    c.error(
      "bad-subgraph",
      `${R.opName(c)}: the body has ${outs.length} outputs but the node has ${c.node.outputs.length}`,
    );
  }
};

const rules: Record<string, R.Rule> = {
  If: ifRule,
  Loop: loop,
  Scan: scan,
};

export const controlRules: Readonly<Record<string, R.Rule>> = Object.freeze(rules);
