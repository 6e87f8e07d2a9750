// Every schema function body, inlined in place of its op, checks clean and gives the numbers of the
// op's own kernel, in our interpreter, for every type its constraint allows.

import { describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { run, fromFloat64, toFloat64, type RTensor } from "../../src/interp/index.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { dtypeByName } from "../../src/ir/dtype.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Model, type Node } from "../../src/ir/types.js";
import { SchemaRegistry, type OpVersion } from "../../src/schema/index.js";
import { callInputTypes, inlineCall } from "../../src/expand/inline.js";
import { NameScope } from "../../src/ir/graph.js";
import { dtypeName } from "../../src/ir/dtype.js";
import { hasFunctionBody } from "../../src/schema/index.js";
import {
  CASES as FUNCTION_CASES,
  callModel,
  constraintTypes,
  expandAll,
  feedsOf,
  functionVersions,
  rng,
  sequenceMapModel,
  type Variant,
} from "../helpers/function-cases.js";

const reg = SchemaRegistry.default();

/** The model with its single node replaced by the op's body, inlined in the graph's name scope. */
function inline(m: Model, opset: number, preferLoops = false): Model {
  const [call] = m.graph.nodes as [Node];
  const v = reg.resolve("", call.opType, opset);
  const body = inlineCall(call, v, callInputTypes(m, call), new NameScope(m.graph), {
    preferLoops,
  });
  const bodyOpset = Math.max(opset, ...body.opsetImports.map((o) => o.version));
  return {
    ...m,
    opsetImports: [{ domain: "", version: bodyOpset }],
    graph: { ...m.graph, nodes: body.nodes },
  };
}

let seed = 20261202;
function rand(): number {
  seed = (seed * 1664525 + 1013904223) >>> 0;
  return seed / 2 ** 32;
}

function input(dtype: number, shape: number[], lo: number, hi: number, integer: boolean): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const v = Float64Array.from({ length: n }, () => {
    const x = lo + (hi - lo) * rand();
    return integer ? Math.round(x) : x;
  });
  return fromFloat64(dtype, shape, v);
}

function tolerance(dtype: number): number {
  if (dtype === DataType.FLOAT16) return 4e-3;
  if (dtype === DataType.BFLOAT16) return 3e-2;
  if (dtype === DataType.FLOAT) return 2e-6;
  if (dtype === DataType.DOUBLE) return 1e-12;
  return 0;
}

function expectClose(got: RTensor, want: RTensor, dtype: number): void {
  expect(got.dtype).toBe(want.dtype);
  expect(got.shape).toEqual(want.shape);
  const g = toFloat64(got);
  const w = toFloat64(want);
  const tol = tolerance(dtype);
  for (let i = 0; i < w.length; i++) {
    if (!Number.isFinite(w[i]!)) expect(g[i], `[${i}]`).toBe(w[i]);
    else
      expect(Math.abs(g[i]! - w[i]!), `[${i}] ${g[i]} vs ${w[i]}`).toBeLessThanOrEqual(
        tol * Math.max(1, Math.abs(w[i]!)),
      );
  }
}

const REDUCE: [op: string, lo: number, hi: number][] = [
  ["ReduceLogSum", 0.2, 3],
  ["ReduceL1", -3, 3],
  ["ReduceL2", -3, 3],
  ["ReduceLogSumExp", -3, 3],
  ["ReduceSumSquare", -3, 3],
];
const CASES: { axes?: bigint[]; keepdims: number; noop: number }[] = [
  { axes: [1n], keepdims: 1, noop: 0 },
  { axes: [-1n, 0n], keepdims: 0, noop: 0 },
  { keepdims: 1, noop: 0 },
  { axes: [], keepdims: 0, noop: 0 },
  { keepdims: 0, noop: 1 },
];

function allowedTypes(op: string, opset: number): number[] {
  const v = reg.resolve("", op, opset);
  const T = v.type_constraints.find((c) => c.name === "T")!;
  return T.allowed.map((s) => dtypeByName(s.slice(7, -1))!.id);
}

describe("Reduce*-18 bodies agree with the kernels", () => {
  for (const [op, lo, hi] of REDUCE)
    for (const dtype of allowedTypes(op, 18))
      it(`${op} ${dtype === DataType.FLOAT16 ? "float16" : dtype}`, () => {
        const integer = ![
          DataType.FLOAT,
          DataType.DOUBLE,
          DataType.FLOAT16,
          DataType.BFLOAT16,
        ].includes(dtype as 1);
        const unsigned = dtype === DataType.UINT32 || dtype === DataType.UINT64;
        for (const c of CASES) {
          const inputs = [valueInfo("x", dtype, [3, 4])];
          const inits = c.axes
            ? [Tensor.from(DataType.INT64, [c.axes.length], c.axes, "axes")]
            : [];
          const m = model(
            graph({
              name: "g",
              nodes: [
                node(op, c.axes ? ["x", "axes"] : ["x"], ["y"], {
                  keepdims: c.keepdims,
                  noop_with_empty_axes: c.noop,
                }),
              ],
              inputs,
              outputs: [valueInfo("y", dtype)],
              initializers: inits,
            }),
            18,
          );
          const expanded = inline(m, 18);
          expect(expanded.graph.nodes.some((n) => n.opType === op)).toBe(false);
          expect(checkModel(expanded).problems).toEqual([]);
          const x = input(
            dtype,
            [3, 4],
            unsigned || op === "ReduceLogSum" ? Math.max(lo, 1) : lo,
            hi,
            integer,
          );
          const want = run(m, { x }).y!;
          const got = run(expanded, { x }).y!;
          expectClose(got, want, dtype);
        }
      });
});

describe("LogCumSumExp-29 body agrees with the kernel", () => {
  const forms: [string, (number | string)[], boolean][] = [
    ["unrolled scan, static shape", [3, 5], false],
    ["Scan op, static shape", [3, 5], true],
    ["Scan op, dynamic shape", ["N", "M"], false],
  ];
  for (const dtype of allowedTypes("LogCumSumExp", 29))
    for (const axis of [0, 1, -1])
      for (const [form, declared, preferLoops] of forms)
        it(`type ${dtype}, axis ${axis}, ${form}`, () => {
          const m = model(
            graph({
              name: "g",
              nodes: [node("LogCumSumExp", ["x"], ["y"], { axis }, { name: "lcse" })],
              inputs: [valueInfo("x", dtype, declared)],
              outputs: [valueInfo("y", dtype, declared)],
            }),
            29,
            13,
          );
          const expanded = inline(m, 29, preferLoops);
          expect(expanded.graph.nodes.some((n) => n.opType === "LogCumSumExp")).toBe(false);
          expect(expanded.graph.nodes.some((n) => n.opType === "Scan" || n.opType === "If")).toBe(
            form !== "unrolled scan, static shape",
          );
          expect(checkModel(expanded).problems).toEqual([]);
          const x = input(dtype, [3, 5], -30, 30, false);
          expectClose(run(expanded, { x }).y!, run(m, { x }).y!, dtype);
        });
});

describe("every function op's body agrees with the op's kernel", () => {
  // FLOAT attributes are float32: a body computing in double uses alpha = 0.2f, where the
  // kernels take an omitted alpha as the double 0.2 (a difference of ~1e-9).
  const tol = (dtype: number, c: Variant, v: OpVersion): number => {
    let t = tolerance(dtype);
    if (dtype === DataType.DOUBLE && v.attributes.some((a) => a.type === "FLOAT")) t = 1e-7;
    return c.tol !== undefined && dtype !== DataType.FLOAT16 && dtype !== DataType.BFLOAT16
      ? Math.max(c.tol, t)
      : t;
  };
  for (const { v, cases } of functionVersions()) {
    if (!cases || cases.interp === false || !hasFunctionBody(v)) continue;
    const label = `${v.name}-${v.since}`;
    for (const dtype of (cases.types ?? constraintTypes)(v).filter(
      (t) => !cases.kernelLacks?.includes(t),
    ))
      it(`${label} ${dtypeName(dtype)}`, () => {
        const r = rng(v.since * 1000 + dtype);
        for (const c of cases.variants(dtype, v, r)) {
          if (c.kernelDiffers) continue;
          const m = callModel(v, c);
          const expanded = expandAll(m);
          const where = `${label} ${dtypeName(dtype)} ${c.name}`;
          expect(
            expanded.graph.nodes.filter((n) =>
              hasFunctionBody(reg.resolve("", n.opType, expanded.opsetImports[0]!.version)),
            ),
            where,
          ).toEqual([]);
          expect(checkModel(expanded).problems, where).toEqual([]);
          const feeds = feedsOf(c);
          const want = run(m, feeds);
          const got = run(expanded, feeds);
          for (const o of m.graph.outputs)
            expectCloseTol(
              got[o.name]!,
              want[o.name]!,
              tol(want[o.name]!.dtype, c, v),
              `${where} ${o.name}`,
            );
        }
      });
  }
});

describe("bodies built without the input's type are valid for every type (constants by CastLike)", () => {
  const ops = ["Elu", "Celu", "Selu", "HardSigmoid", "HardSwish", "ThresholdedRelu", "LeakyRelu"];
  ops.push("Softplus", "Softsign", "Mish", "Swish", "Gelu", "Relu", "PRelu", "Shrink", "SwiGLU");
  ops.push("Softmax", "LogSoftmax", "MeanVarianceNormalization", "Clip");
  for (const op of ops)
    it(op, () => {
      const v = reg
        .versions("", op)
        .filter((x) => x.function)
        .at(-1)!;
      const cases = FUNCTION_CASES.find((c) => c.op === op)!;
      for (const dtype of [DataType.FLOAT, DataType.FLOAT16]) {
        for (const c of cases.variants(dtype, v, rng(dtype))) {
          if (c.kernelDiffers) continue;
          const m = callModel(v, c);
          const [call] = m.graph.nodes as [Node];
          const body = inlineCall(
            call,
            v,
            call.inputs.map(() => undefined),
            new NameScope(m.graph),
          );
          const opset = Math.max(v.since, ...body.opsetImports.map((o) => o.version));
          const expanded = {
            ...m,
            opsetImports: [{ domain: "", version: opset }],
            graph: { ...m.graph, nodes: body.nodes },
          };
          const where = `${op} ${dtypeName(dtype)} ${c.name}`;
          expect(checkModel(expanded).problems, where).toEqual([]);
          const feeds = feedsOf(c);
          const want = run(m, feeds).o0!;
          expectCloseTol(run(expanded, feeds).o0!, want, tolerance(dtype) * 2, where);
        }
      }
    });
});

describe("coverage", () => {
  it("every function version with a body is exercised here (by the table, or a test of its own)", () => {
    const own = [
      "ReduceLogSum-18",
      "ReduceL1-18",
      "ReduceL2-18",
      "ReduceLogSumExp-18",
      "ReduceSumSquare-18",
      "LogCumSumExp-29",
      "SequenceMap-17",
    ];
    const untested = functionVersions()
      .filter(({ v, cases }) => !cases && hasFunctionBody(v))
      .map(({ v }) => `${v.name}-${v.since}`);
    expect(untested.sort()).toEqual(own.sort());
    const without = functionVersions()
      .filter(({ v }) => v.function && !hasFunctionBody(v))
      .map(({ v }) => `${v.name}-${v.since}`);
    expect(without).toEqual([]);
  });
});

describe("SequenceMap-17's body (variadic formals, a Loop over the items)", () => {
  for (const dtype of [DataType.FLOAT, DataType.DOUBLE, DataType.INT32, DataType.INT64])
    for (const [three, extraSeq] of [
      [false, false],
      [true, false],
      [true, true],
    ] as const)
      it(`${dtypeName(dtype)}, ${three ? 3 : 2} items${extraSeq ? ", a second sequence" : ""}`, () => {
        const { m, feeds } = sequenceMapModel(dtype, three, extraSeq);
        const expanded = expandAll(m);
        expect(expanded.graph.nodes.some((n) => n.opType === "SequenceMap")).toBe(false);
        expect(expanded.graph.nodes.some((n) => n.opType === "Loop")).toBe(true);
        expect(checkModel(expanded).problems).toEqual([]);
        const want = run(m, feeds);
        const got = run(expanded, feeds);
        for (const o of ["y0", "y1"]) expectCloseTol(got[o]!, want[o]!, 0, o);
      });
});

function expectCloseTol(got: RTensor, want: RTensor, tol: number, where: string): void {
  expect(got.dtype, where).toBe(want.dtype);
  expect(got.shape, where).toEqual(want.shape);
  if (
    want.dtype === DataType.BOOL ||
    want.data instanceof BigInt64Array ||
    want.data instanceof BigUint64Array
  ) {
    expect(Array.from(got.data as ArrayLike<unknown>), where).toEqual(
      Array.from(want.data as ArrayLike<unknown>),
    );
    return;
  }
  const g = toFloat64(got);
  const w = toFloat64(want);
  for (let i = 0; i < w.length; i++) {
    if (!Number.isFinite(w[i]!)) expect(g[i], `${where} [${i}]`).toBe(w[i]);
    else
      expect(Math.abs(g[i]! - w[i]!), `${where} [${i}] ${g[i]} vs ${w[i]}`).toBeLessThanOrEqual(
        tol * Math.max(1, Math.abs(w[i]!)),
      );
  }
}
