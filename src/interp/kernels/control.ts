// Control flow: If, Loop, Scan. Each is a BodyKernel: it yields every body run it needs and the
// executor answers with the body's outputs, running the body on its own stack of frames with
// outer-scope values visible (no recursion through kernels, however deeply calls nest).

import { attrInt, attrInts, getAttr } from "../../ir/attributes.js";
import { dtypeName } from "../../ir/dtype.js";
import { DataType, type Graph } from "../../ir/types.js";
import { chargeValue } from "../budget.js";
import { allocStorage } from "../tensor.js";
import type { BodyKernel, BodyRun, KernelContext, RTensor, RValue } from "../types.js";
import { alloc, fail, isTensor, normAxis } from "./util.js";
import { hasInput } from "../../schema/facts.js";
import { opVersion } from "./version.js";

type AnyStore = { [i: number]: unknown; length: number };

function graphAttr(ctx: KernelContext, name: string): Graph {
  const a = getAttr(ctx.node, name);
  if (!a || a.type !== "GRAPH" || !a.value) fail(ctx, `attribute '${name}' (a graph) is required`);
  return a.value;
}

function truthy(ctx: KernelContext, v: RValue | undefined, what: string): boolean {
  if (!isTensor(v)) fail(ctx, `${what} must be a tensor`);
  if (v.data.length !== 1)
    fail(
      ctx,
      `${what} must hold one value, got shape [${v.data.length === 0 ? "empty" : v.shape.join(",")}]`,
    );
  const x = v.data[0];
  return typeof x === "bigint" ? x !== 0n : Boolean(x);
}

const If: BodyKernel = function* (ctx, inputs) {
  const cond = truthy(ctx, inputs[0], "condition");
  const g = graphAttr(ctx, cond ? "then_branch" : "else_branch");
  const outs = yield { graph: g, inputs: [] };
  if (outs.length !== ctx.node.outputs.length)
    fail(
      ctx,
      `${cond ? "then" : "else"} branch returns ${outs.length} values, the node has ${ctx.node.outputs.length} outputs`,
    );
  return outs;
};

/** Element t along `axis` of x, with that axis removed. */
function sliceAt(x: RTensor, axis: number, t: number): RTensor {
  const shape = x.shape.filter((_, i) => i !== axis);
  const outer = x.shape.slice(0, axis).reduce((p, d) => p * d, 1);
  const inner = x.shape.slice(axis + 1).reduce((p, d) => p * d, 1);
  const dim = x.shape[axis]!;
  const data = allocStorage(x.dtype, outer * inner);
  const s = x.data as unknown as AnyStore;
  const d = data as unknown as AnyStore;
  for (let o = 0; o < outer; o++) {
    const src = (o * dim + t) * inner;
    for (let j = 0; j < inner; j++) d[o * inner + j] = s[src + j];
  }
  return { dtype: x.dtype, shape, data };
}

/** Stacks equally shaped tensors along a new axis. */
function stack(ctx: KernelContext, items: RTensor[], axis: number, what: string): RTensor {
  const first = items[0]!;
  for (const t of items)
    if (
      t.dtype !== first.dtype ||
      t.shape.length !== first.shape.length ||
      t.shape.some((d, i) => d !== first.shape[i])
    )
      fail(
        ctx,
        `${what}: iterations produced different shapes or types (${dtypeName(first.dtype)}[${first.shape.join(",")}] and ${dtypeName(t.dtype)}[${t.shape.join(",")}])`,
      );
  const ax = normAxis(ctx, axis, first.shape.length + 1, `${what} axis`);
  const shape = [...first.shape.slice(0, ax), items.length, ...first.shape.slice(ax)];
  const out = alloc(ctx, first.dtype, shape);
  const outer = first.shape.slice(0, ax).reduce((p, d) => p * d, 1);
  const inner = first.shape.slice(ax).reduce((p, d) => p * d, 1);
  const d = out.data as unknown as AnyStore;
  items.forEach((t, k) => {
    const s = t.data as unknown as AnyStore;
    for (let o = 0; o < outer; o++) {
      const dst = (o * items.length + k) * inner;
      for (let j = 0; j < inner; j++) d[dst + j] = s[o * inner + j];
    }
  });
  return out;
}

function emptyScanOutput(ctx: KernelContext, body: Graph, outIndex: number): RTensor {
  const t = body.outputs[outIndex]?.type;
  const dtype = t && t.kind === "tensor" && t.elemType ? t.elemType : DataType.FLOAT;
  const rest =
    t && t.kind === "tensor" && t.shape ? t.shape.map((d) => (typeof d === "number" ? d : 0)) : [];
  return alloc(ctx, dtype, [0, ...rest]);
}

const Loop: BodyKernel = function* (ctx, inputs) {
  const body = graphAttr(ctx, "body");
  const mT = inputs[0];
  const cT = inputs[1];
  let maxTrip = Infinity;
  if (mT !== undefined) {
    if (!isTensor(mT) || mT.data.length !== 1)
      fail(ctx, "trip count M must be a one-element tensor");
    const v = mT.data[0]!;
    maxTrip =
      typeof v === "bigint"
        ? v > BigInt(Number.MAX_SAFE_INTEGER)
          ? Infinity
          : Number(v)
        : Number(v);
  }
  let cond = cT === undefined ? true : truthy(ctx, cT, "condition");
  let carried = inputs.slice(2).map((v, i) => {
    if (v === undefined) fail(ctx, `loop-carried input ${i} is missing`);
    return v;
  });
  const nCarried = carried.length;
  const nScan = ctx.node.outputs.length - nCarried;
  if (body.inputs.length !== nCarried + 2)
    fail(ctx, `body takes ${body.inputs.length} inputs, ${nCarried + 2} expected`);
  const scans: RTensor[][] = Array.from({ length: Math.max(nScan, 0) }, () => []);
  let i = 0;
  while (i < maxTrip && cond) {
    const iter: RTensor = { dtype: DataType.INT64, shape: [], data: BigInt64Array.of(BigInt(i)) };
    const condT: RTensor = { dtype: DataType.BOOL, shape: [], data: Uint8Array.of(1) };
    const outs = yield { graph: body, inputs: [iter, condT, ...carried] };
    if (outs.length !== 1 + nCarried + nScan)
      fail(ctx, `body returns ${outs.length} values, ${1 + nCarried + nScan} expected`);
    cond = truthy(ctx, outs[0], "body's condition output");
    carried = outs.slice(1, 1 + nCarried) as RValue[];
    for (let k = 0; k < nScan; k++) {
      const v = outs[1 + nCarried + k];
      if (!isTensor(v)) fail(ctx, `scan output ${k} must be a tensor`);
      // Kept until the loop ends: counted in the memory budget now, not when stacked.
      chargeValue(v, `scan output ${k} of iteration ${i}`);
      scans[k]!.push(v);
    }
    i++;
    const limit = ctx.maxIterations ?? Infinity; // the executor always sets it
    if (i >= limit && i < maxTrip && cond)
      fail(
        ctx,
        `loop would run more than ${limit} iterations (raise --max-iterations to allow more)`,
      );
  }
  const scanOut = scans.map((items, k) =>
    items.length
      ? stack(ctx, items, 0, `scan output ${k}`)
      : emptyScanOutput(ctx, body, 1 + nCarried + k),
  );
  return [...carried, ...scanOut];
};

/** One Scan (version 9+ semantics) over states and scan inputs; returns final states + scan outputs. */
function* scanCore(
  ctx: KernelContext,
  body: Graph,
  states: RValue[],
  xs: RTensor[],
  inAxes: number[],
  inDirs: number[],
  outAxes: number[],
  outDirs: number[],
  nScanOut: number,
): Generator<BodyRun, RValue[], RValue[]> {
  const nState = states.length;
  const axes = xs.map((x, i) =>
    normAxis(ctx, inAxes[i] ?? 0, x.shape.length, "scan_input_axes entry"),
  );
  let len = -1;
  xs.forEach((x, i) => {
    const l = x.shape[axes[i]!]!;
    if (len >= 0 && l !== len)
      fail(ctx, `scan inputs have different sequence lengths (${len} and ${l})`);
    len = l;
  });
  if (len < 0) fail(ctx, "needs at least one scan input");
  let carried = states;
  const scans: RTensor[][] = Array.from({ length: nScanOut }, () => []);
  for (let t = 0; t < len; t++) {
    const slices = xs.map((x, i) => sliceAt(x, axes[i]!, inDirs[i] ? len - 1 - t : t));
    const outs = yield { graph: body, inputs: [...carried, ...slices] };
    if (outs.length !== nState + nScanOut)
      fail(ctx, `body returns ${outs.length} values, ${nState + nScanOut} expected`);
    carried = outs.slice(0, nState);
    for (let k = 0; k < nScanOut; k++) {
      const v = outs[nState + k];
      if (!isTensor(v)) fail(ctx, `scan output ${k} must be a tensor`);
      chargeValue(v, `scan output ${k} of iteration ${t}`);
      scans[k]!.push(v);
    }
  }
  const scanOut = scans.map((items, k) => {
    if (items.length === 0) return emptyScanOutput(ctx, body, nState + k);
    if (outDirs[k]) items.reverse();
    return stack(ctx, items, outAxes[k] ?? 0, `scan output ${k}`);
  });
  return [...carried, ...scanOut];
}

const Scan: BodyKernel = function* (ctx, inputs) {
  const body = graphAttr(ctx, "body");
  const nScanIn = attrInt(ctx.node, "num_scan_inputs");
  if (nScanIn === undefined) fail(ctx, "attribute 'num_scan_inputs' is required");
  if (hasInput(opVersion(ctx), "sequence_lens")) return yield* scanV8(ctx, inputs, body, nScanIn);
  const nState = inputs.length - nScanIn;
  if (nState < 0)
    fail(ctx, `num_scan_inputs is ${nScanIn} but the node has ${inputs.length} inputs`);
  const states = inputs.slice(0, nState).map((v, i) => {
    if (!isTensor(v)) fail(ctx, `state input ${i} must be a tensor`);
    return v;
  }) as RValue[];
  const xs = inputs.slice(nState).map((v, i) => {
    if (!isTensor(v)) fail(ctx, `scan input ${i} must be a tensor`);
    return v;
  });
  const nScanOut = ctx.node.outputs.length - nState;
  const inAxes = attrInts(ctx.node, "scan_input_axes") ?? xs.map(() => 0);
  const inDirs = attrInts(ctx.node, "scan_input_directions") ?? xs.map(() => 0);
  const outAxes = attrInts(ctx.node, "scan_output_axes") ?? new Array<number>(nScanOut).fill(0);
  const outDirs =
    attrInts(ctx.node, "scan_output_directions") ?? new Array<number>(nScanOut).fill(0);
  return yield* scanCore(ctx, body, states, xs, inAxes, inDirs, outAxes, outDirs, nScanOut);
};

/**
 * Scan-8: every input and output has a leading batch axis; the optional first input gives
 * each batch entry's sequence length (only full lengths are supported).
 */
function* scanV8(
  ctx: KernelContext,
  inputs: (RValue | undefined)[],
  body: Graph,
  nScanIn: number,
): Generator<BodyRun, RValue[], RValue[]> {
  const lensT = inputs[0];
  const rest = inputs.slice(1).map((v, i) => {
    if (!isTensor(v)) fail(ctx, `input ${i + 1} must be a tensor`);
    return v;
  });
  const nState = rest.length - nScanIn;
  if (nState < 0)
    fail(ctx, `num_scan_inputs is ${nScanIn} but the node has ${inputs.length} inputs`);
  const nScanOut = ctx.node.outputs.length - nState;
  const batch = rest[0]?.shape[0] ?? 0;
  for (const t of rest)
    if (t.shape.length === 0 || t.shape[0] !== batch)
      fail(ctx, "every input needs the same leading batch axis");
  const xs = rest.slice(nState);
  const full = xs[0]?.shape[1] ?? 0;
  if (isTensor(lensT))
    for (const l of Array.from(lensT.data as ArrayLike<number | bigint>, Number))
      if (l !== full)
        fail(
          ctx,
          `sequence_lens entry ${l} differs from the sequence length ${full} (unsupported)`,
        );
  const dirs = attrInts(ctx.node, "directions") ?? xs.map(() => 0);
  const perBatch: RValue[][] = [];
  for (let b = 0; b < batch; b++) {
    const states = rest.slice(0, nState).map((t) => sliceAt(t, 0, b));
    const bx = xs.map((t) => sliceAt(t, 0, b));
    const zeros = new Array<number>(nScanOut).fill(0);
    perBatch.push(
      yield* scanCore(
        ctx,
        body,
        states,
        bx,
        bx.map(() => 0),
        dirs,
        zeros,
        zeros,
        nScanOut,
      ),
    );
  }
  return Array.from({ length: nState + nScanOut }, (_, k) => {
    const items = perBatch.map((outs) => {
      const v = outs[k];
      if (!isTensor(v)) fail(ctx, `output ${k} must be a tensor`);
      return v;
    });
    return stack(ctx, items, 0, `output ${k}`);
  });
}

export const controlKernels: Record<string, BodyKernel> = { If, Loop, Scan };
