// legalize-recurrent: LSTM, GRU and RNN of a static length unrolled step by step, for a target
// without them (CoreML, NNAPI). Each model runs before and after on onnxruntime-node and in the
// interpreter: the same numbers norm-wise within 1e-6 (forward, reverse, bidirectional; LSTM with
// peepholes and initial states; GRU with linear_before_reset 0 and 1; RNN; clip; a Relu
// activation; layout 1; weights as initializers and as inputs; sequence_lens constant and full).
// A dynamic sequence length, sequence_lens given at run time or shorter, and a target without an
// activation's op leave the node, with a note.

import { describe, expect, it } from "vitest";
import { run } from "../../src/interp/executor.js";
import { toIRTensor } from "../../src/interp/ir-tensors.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import type { Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeRecurrent } from "../../src/passes/legalize-recurrent.js";
import { DataType, node, oneNodeModel } from "../helpers/interp.js";
import { random, runOrt } from "../helpers/ort.js";

const F = DataType.FLOAT;
const RECURRENT = ["LSTM", "GRU", "RNN"];
const lacking = (op: string) => !RECURRENT.includes(op);

interface Case {
  op: "LSTM" | "GRU" | "RNN";
  direction?: "forward" | "reverse" | "bidirectional";
  bias?: boolean;
  states?: boolean;
  peepholes?: boolean;
  lbr?: number;
  layout?: number;
  clip?: number;
  activations?: string[];
  alpha?: number[];
  /** the weights as initializers (else graph inputs) */
  constant?: boolean;
  /** sequence_lens, as a constant */
  lens?: number[];
  /** which outputs are made (default all) */
  outputs?: boolean[];
}

const [T, B, I, H] = [5, 3, 4, 6];

function recurrentModel(c: Case, seed: number): { m: Model; feeds: Record<string, RTensor> } {
  const D = c.direction === "bidirectional" ? 2 : 1;
  const G = c.op === "LSTM" ? 4 : c.op === "GRU" ? 3 : 1;
  const batchFirst = c.layout === 1;
  const state = () => random(F, batchFirst ? [B, D, H] : [D, B, H], seed++, -1, 1);
  const inputs: (RTensor | undefined)[] = [
    random(F, batchFirst ? [B, T, I] : [T, B, I], seed++, -2, 2),
    random(F, [D, G * H, I], seed++, -0.6, 0.6),
    random(F, [D, G * H, H], seed++, -0.6, 0.6),
    c.bias ? random(F, [D, 2 * G * H], seed++, -0.5, 0.5) : undefined,
    c.lens ? { dtype: DataType.INT32, shape: [B], data: Int32Array.from(c.lens) } : undefined,
    c.states ? state() : undefined,
    c.states && c.op === "LSTM" ? state() : undefined,
    c.peepholes ? random(F, [D, 3 * H], seed++, -0.5, 0.5) : undefined,
  ];
  while (!inputs[inputs.length - 1]) inputs.pop();
  const names = inputs.map((t, i) => (t ? `x${i}` : ""));
  const attrs: Record<string, number | string | string[]> = { hidden_size: H };
  if (c.direction) attrs.direction = c.direction;
  if (c.lbr !== undefined) attrs.linear_before_reset = c.lbr;
  if (c.layout !== undefined) attrs.layout = c.layout;
  if (c.clip !== undefined) attrs.clip = c.clip;
  if (c.activations) attrs.activations = c.activations;
  const m = oneNodeModel({
    op: c.op,
    inputs: inputs.filter((t): t is RTensor => t !== undefined),
    names,
    attrs,
    outputs: c.op === "LSTM" ? 3 : 2,
    opset: 14,
  });
  const node = m.graph.nodes[0]!;
  if (c.alpha) node.attributes.push({ name: "activation_alpha", type: "FLOATS", value: c.alpha });
  const wanted = c.outputs ?? [true, true, true];
  node.outputs = node.outputs.map((o, k) => (wanted[k] ? o : ""));
  m.graph.outputs = m.graph.outputs.filter((o) => node.outputs.includes(o.name));
  const feeds: Record<string, RTensor> = {};
  inputs.forEach((t, i) => {
    if (!t) return;
    // sequence_lens and, when asked, the weights are constants; X and the states are fed
    const constant = i === 4 || (c.constant && [1, 2, 3, 7].includes(i));
    if (constant) {
      m.graph.initializers.push(toIRTensor(t, `x${i}`));
      m.graph.inputs = m.graph.inputs.filter((v) => v.name !== `x${i}`);
    } else feeds[`x${i}`] = t;
  });
  return { m, feeds };
}

function normwise(a: RTensor, b: RTensor): number {
  const [x, y] = [toFloat64(a), toFloat64(b)];
  let [d, n] = [0, 0];
  for (let i = 0; i < x.length; i++) {
    d += (x[i]! - y[i]!) ** 2;
    n += y[i]! ** 2;
  }
  return Math.sqrt(d / n);
}

function unrolled(m: Model): Model {
  const r = runPass(legalizeRecurrent({ has: lacking }), m);
  if (!r.ok) throw new Error(r.error.message);
  expect(r.modified).toBe(true);
  const ops = r.model.graph.nodes.map((n) => n.opType);
  for (const op of RECURRENT) expect(ops).not.toContain(op);
  return r.model;
}

/** Before and after, on onnxruntime (unless it lacks the form) and in the interpreter. */
async function sameNumbers(c: Case, seed: number, onOrt = true): Promise<Model> {
  const { m, feeds } = recurrentModel(c, seed);
  const after = unrolled(m);
  const pairs: [Record<string, RTensor>, Record<string, RTensor>][] = [
    [run(m, feeds), run(after, feeds)],
  ];
  if (onOrt) pairs.push([await runOrt(m, feeds), await runOrt(after, feeds)]);
  for (const [a, b] of pairs) {
    expect(Object.keys(b).sort()).toEqual(Object.keys(a).sort());
    for (const k of Object.keys(a)) {
      expect(b[k]!.shape, k).toEqual(a[k]!.shape);
      expect(normwise(b[k]!, a[k]!), k).toBeLessThanOrEqual(1e-6);
    }
  }
  return after;
}

/**
 * The batch-first model as onnxruntime runs it: the node with layout 0 between Transposes of X,
 * the initial states and the outputs (onnxruntime's CPU kernels refuse layout 1).
 */
function timeMajor(m: Model): Model {
  const n = m.graph.nodes[0]!;
  const swap = (x: string, perm: number[]) => ({ ...node("Transpose", [x], [`${x}_t`], { perm }) });
  const before = n.inputs.flatMap((x, i) =>
    x && (i === 0 || i === 5 || i === 6) ? [swap(x, [1, 0, 2])] : [],
  );
  const inputs = n.inputs.map((x, i) => (x && (i === 0 || i === 5 || i === 6) ? `${x}_t` : x));
  const outputs = n.outputs.map((o) => (o ? `${o}_t` : o));
  const after = n.outputs.flatMap((o, k) =>
    o ? [node("Transpose", [`${o}_t`], [o], { perm: k === 0 ? [2, 0, 1, 3] : [1, 0, 2] })] : [],
  );
  const attributes = n.attributes.filter((a) => a.name !== "layout");
  const inner = { ...n, inputs, outputs, attributes };
  return { ...m, graph: { ...m.graph, nodes: [...before, inner, ...after] } };
}

const batchFirstLstm: Case = {
  op: "LSTM",
  direction: "bidirectional",
  bias: true,
  states: true,
  peepholes: true,
  layout: 1,
};

describe("legalize-recurrent", () => {
  it("LSTM forward, weights as inputs, no bias or states", async () => {
    await sameNumbers({ op: "LSTM" }, 1);
  });

  it("LSTM reverse with bias, peepholes and initial states, weights as initializers", async () => {
    await sameNumbers(
      {
        op: "LSTM",
        direction: "reverse",
        bias: true,
        peepholes: true,
        states: true,
        constant: true,
      },
      11,
    );
  });

  it("LSTM bidirectional with peepholes, states and clip; Y_h and Y_c only", async () => {
    const after = await sameNumbers(
      {
        op: "LSTM",
        direction: "bidirectional",
        bias: true,
        peepholes: true,
        states: true,
        clip: 0.7,
        outputs: [false, true, true],
      },
      21,
    );
    expect(after.graph.nodes.filter((n) => n.opType === "Clip").length).toBe(2 * T * 4);
  });

  it("LSTM with sequence_lens constant and all full", async () => {
    await sameNumbers({ op: "LSTM", bias: true, lens: [T, T, T], constant: true }, 31);
  });

  it("GRU bidirectional, linear_before_reset 0, bias and initial state", async () => {
    await sameNumbers(
      { op: "GRU", direction: "bidirectional", bias: true, states: true, lbr: 0 },
      41,
    );
  });

  it("GRU forward and reverse, linear_before_reset 1 (onnxruntime's default form for torch)", async () => {
    await sameNumbers({ op: "GRU", bias: true, states: true, lbr: 1, constant: true }, 51);
    await sameNumbers({ op: "GRU", direction: "reverse", bias: true, lbr: 1 }, 52);
    await sameNumbers({ op: "GRU", direction: "bidirectional", bias: true, lbr: 1, clip: 1.5 }, 53);
  });

  it("RNN forward (Tanh), bidirectional with Relu, bias and states, and LeakyRelu with alpha 2", async () => {
    await sameNumbers({ op: "RNN", bias: true }, 61);
    await sameNumbers(
      {
        op: "RNN",
        direction: "bidirectional",
        bias: true,
        states: true,
        activations: ["Relu", "Tanh"],
      },
      62,
    );
    // an integral alpha stays a float attribute (LeakyRelu takes no int)
    await sameNumbers({ op: "RNN", bias: true, activations: ["LeakyRelu"], alpha: [2] }, 63);
  });

  it("layout 1 (batch first): in the interpreter, and on onnxruntime against layout 0 between Transposes", async () => {
    for (const [c, seed] of [
      [batchFirstLstm, 73],
      [{ op: "GRU", direction: "reverse", bias: true, states: true, lbr: 1, layout: 1 }, 74],
    ] as [Case, number][]) {
      const { m, feeds } = recurrentModel(c, seed);
      const [a, b] = [await runOrt(timeMajor(m), feeds), await runOrt(unrolled(m), feeds)];
      const ours = run(m, feeds);
      for (const k of Object.keys(a)) {
        expect(b[k]!.shape, k).toEqual(a[k]!.shape);
        expect(normwise(b[k]!, a[k]!), k).toBeLessThanOrEqual(1e-6);
        expect(normwise(ours[k]!, a[k]!), k).toBeLessThanOrEqual(1e-6);
      }
    }
    await sameNumbers(batchFirstLstm, 71, false);
    await sameNumbers({ op: "GRU", bias: true, states: true, lbr: 1, layout: 1 }, 72, false);
  });

  it("leaves a dynamic length, run-time or short sequence_lens, and a missing activation op", () => {
    const left = (m: Model, has = lacking) => {
      const r = runPass(legalizeRecurrent({ has }), m);
      if (!r.ok) throw new Error(r.error.message);
      expect(r.modified).toBe(false);
      return r.notes.map((n) => n.message).join("; ");
    };
    const dynamic = recurrentModel({ op: "LSTM" }, 81).m;
    const x = dynamic.graph.inputs.find((v) => v.name === "x0")!;
    if (x.type?.kind === "tensor") x.type = { ...x.type, shape: ["T", B, I] };
    expect(left(dynamic)).toMatch(/not static/);
    const runtime = recurrentModel({ op: "GRU", lens: [T, T, T] }, 82).m;
    runtime.graph.inputs.push({ name: "x4", type: { kind: "tensor", elemType: 6, shape: [B] } });
    runtime.graph.initializers = runtime.graph.initializers.filter((t) => t.name !== "x4");
    expect(left(runtime)).toMatch(/computed at run time/);
    expect(left(recurrentModel({ op: "RNN", lens: [T, 2, T] }, 83).m)).toMatch(/full length/);
    const noTanh = (op: string) => lacking(op) && op !== "Tanh";
    expect(left(recurrentModel({ op: "LSTM" }, 84).m, noTanh)).toMatch(/Tanh/);
  });
});
