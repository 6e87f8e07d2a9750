// DynamicQuantizeLSTM's exact body (src/schema/builders/contrib-lstm.ts): expanded, the model gives
// onnxruntime's numbers on onnxruntime (the input and each row's hidden state quantized at run
// time, integer products, the scales applied in float32), forward, reverse and bidirectional,
// int8 and uint8 weights, per-direction scales and zero points, per-column scales (onnxruntime
// takes per-column zero points only as zeros); a call with peepholes keeps the
// approximate body (weights dequantized, then LSTM). And the deployed corpus's lstm_dynamic.

import { describe, expect, it } from "vitest";
import { convert, expand } from "../../src/app/transform.js";
import { checkModel } from "../../src/check/index.js";
import { run } from "../../src/interp/executor.js";
import { toIRTensor } from "../../src/interp/ir-tensors.js";
import { fromFloat64, toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import type { Model } from "../../src/ir/types.js";
import { loadDeployed } from "../../scripts/corpus/deployed-judge.js";
import { DataType, oneNodeModel } from "../helpers/interp.js";
import { rng, runOrt } from "../helpers/ort.js";

const F = DataType.FLOAT;
const U8 = DataType.UINT8;
const I8 = DataType.INT8;

function rand(dtype: number, shape: number[], seed: number, lo = -1, hi = 1): RTensor {
  const r = rng(seed);
  const n = shape.reduce((a, b) => a * b, 1);
  const [a, b] = dtype === U8 ? [0, 255] : dtype === I8 ? [-128, 127] : [lo, hi];
  const v = Float64Array.from({ length: n }, () =>
    dtype === F ? a + (b - a) * r() : Math.floor(a + (b - a + 1) * r()),
  );
  return fromFloat64(dtype, shape, v);
}

interface Case {
  direction: "forward" | "reverse" | "bidirectional";
  weights: number;
  perColumn: boolean;
  bias: boolean;
  states: boolean;
  peepholes?: boolean;
}

/** One DynamicQuantizeLSTM node, its weights as initializers; X [T=7, batch 1, 12], H = 10. */
function lstmModel(c: Case, seed: number): { m: Model; feeds: Record<string, RTensor> } {
  const [T, B, I, H] = [7, 1, 12, 10];
  const D = c.direction === "bidirectional" ? 2 : 1;
  const sc = c.perColumn ? [D, 4 * H] : [D];
  const zp = (s: number) => {
    const t = rand(c.weights, sc, s);
    // zero points near the middle of the codes
    // (onnxruntime takes per-column zero points only as zeros, for int8)
    const v = toFloat64(t).map((x) =>
      c.perColumn ? 0 : c.weights === U8 ? 120 + (x % 16) : x % 8,
    );
    return fromFloat64(c.weights, sc, v);
  };
  const X = rand(F, [T, B, I], seed, -2, 2);
  const inputs: (RTensor | undefined)[] = [
    X,
    rand(c.weights, [D, I, 4 * H], seed + 1),
    rand(c.weights, [D, H, 4 * H], seed + 2),
    c.bias ? rand(F, [D, 8 * H], seed + 3, -0.5, 0.5) : undefined,
    undefined,
    c.states ? rand(F, [D, B, H], seed + 4) : undefined,
    c.states ? rand(F, [D, B, H], seed + 5) : undefined,
    c.peepholes ? rand(F, [D, 3 * H], seed + 6, -0.3, 0.3) : undefined,
    rand(F, sc, seed + 7, 0.002, 0.01),
    zp(seed + 8),
    rand(F, sc, seed + 9, 0.002, 0.01),
    zp(seed + 10),
  ];
  const names = inputs.map((t, i) => (t ? `x${i}` : ""));
  const m = oneNodeModel({
    op: "DynamicQuantizeLSTM",
    inputs: inputs.filter((t): t is RTensor => t !== undefined),
    names,
    attrs: { direction: c.direction, hidden_size: H },
    outputs: 3,
    opset: 14,
    extra: { domain: "com.microsoft" },
  });
  m.opsetImports.push({ domain: "com.microsoft", version: 1 });
  // everything but X is an initializer (onnxruntime packs W and R when they are constant)
  m.graph.inputs = m.graph.inputs.filter((vi) => vi.name === "x0");
  inputs.forEach((t, i) => {
    if (t && i > 0) m.graph.initializers.push(toIRTensor(t, `x${i}`));
  });
  return { m, feeds: { x0: X } };
}

function normRel(a: RTensor, b: RTensor): number {
  const [x, y] = [toFloat64(a), toFloat64(b)];
  let d = 0;
  let n = 0;
  for (let i = 0; i < x.length; i++) {
    d += (x[i]! - y[i]!) ** 2;
    n += y[i]! ** 2;
  }
  return Math.sqrt(d / n);
}

const expanded = (m: Model): Model => {
  const r = expand(m);
  if (!r.ok) throw new Error(r.notes.map((n) => n.message).join("; "));
  return r.model;
};

const ops = (m: Model) => m.graph.nodes.map((n) => n.opType);

describe("DynamicQuantizeLSTM's body gives onnxruntime's numbers on onnxruntime", () => {
  const cases: [string, Case][] = [
    [
      "forward, int8, per direction",
      { direction: "forward", weights: I8, perColumn: false, bias: true, states: false },
    ],
    [
      "reverse, uint8, per column, states",
      { direction: "reverse", weights: U8, perColumn: true, bias: true, states: true },
    ],
    [
      "bidirectional, int8, per column, no bias",
      { direction: "bidirectional", weights: I8, perColumn: true, bias: false, states: true },
    ],
    [
      "bidirectional, uint8, per direction",
      { direction: "bidirectional", weights: U8, perColumn: false, bias: true, states: false },
    ],
  ];
  it.each(cases)("%s", async (_, c) => {
    const { m, feeds } = lstmModel(c, 11);
    const want = await runOrt(m, feeds);
    const e = expanded(m);
    expect(ops(e)).toContain("Scan");
    expect(ops(e)).not.toContain("LSTM");
    const got = await runOrt(e, feeds);
    const ours = run(e, feeds);
    for (const o of ["y0", "y1", "y2"]) {
      expect(normRel(got[o]!, want[o]!), o).toBeLessThanOrEqual(1e-6);
      // the interpreter on the body: its float64 Sigmoid and Tanh, a quantum apart at most
      expect(normRel(ours[o] as RTensor, want[o]!), o).toBeLessThanOrEqual(1e-3);
    }
  });

  it("a call with peepholes keeps the approximate body (weights dequantized, then LSTM)", () => {
    const { m } = lstmModel(
      {
        direction: "forward",
        weights: I8,
        perColumn: false,
        bias: true,
        states: true,
        peepholes: true,
      },
      5,
    );
    expect(ops(expanded(m))).toContain("LSTM");
  });

  it("the deployed corpus's lstm_dynamic, expanded, gives onnxruntime's bytes there", async () => {
    const d = loadDeployed("lstm_dynamic");
    const feeds = d.sets[0]!.inputs as Record<string, RTensor>;
    const want = await runOrt(d.model, feeds);
    const got = await runOrt(expanded(d.model), feeds);
    for (const [k, v] of Object.entries(want)) {
      expect(normRel(got[k]!, v), k).toBeLessThanOrEqual(1e-6);
      expect([...toFloat64(got[k]!)]).toEqual([...toFloat64(v)]);
    }
  });

  // The body is written for opset 18 (the reductions' axes an input, Split's num_outputs): the
  // same at every later opset, converted down for an older caller.
  it.each([18, 22])(
    "lstm_dynamic converted to opset %i, then expanded, is valid and computes the same",
    async (opset) => {
      const d = loadDeployed("lstm_dynamic");
      const feeds = d.sets[0]!.inputs as Record<string, RTensor>;
      const c = convert(d.model, opset);
      if (!c.ok) throw new Error(c.notes.map((n) => n.message).join("; "));
      const m = expanded(c.model);
      expect(checkModel(m).problems).toEqual([]);
      const want = await runOrt(expanded(d.model), feeds);
      const got = await runOrt(m, feeds);
      for (const [k, v] of Object.entries(want))
        expect([...toFloat64(got[k]!)]).toEqual([...toFloat64(v)]);
    },
  );
});
