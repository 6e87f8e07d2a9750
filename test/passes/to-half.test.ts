// to-half (`precision --to float16|bfloat16`, `lower --precision`): what becomes half and what
// stays float32 (by the schema, by the value ranges, by the error), one Cast at each boundary and
// never two back to back, nodes in topological order; every result run on onnxruntime-node (float16)
// and in the interpreter, and passed through ONNX's full checker where the Python venv is there.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

import {
  precision,
  randomInputs,
  requiredInputs,
  type PrecisionRequest,
} from "../../src/app/index.js";
import { decodeTensorProto, encodeTensorProto } from "../../src/interp/value-proto.js";
import { lower } from "../../src/app/transform.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { encodeModel, loadModel } from "../../src/io/files.js";
import { topologicalOrder } from "../../src/ir/graph.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { normError, outputsError } from "../../src/passes/to-half/index.js";
import { storedRounded } from "../../src/passes/to-half/verify.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { findPython } from "../../scripts/corpus/python.js";
import { checkNodes, referenceValues } from "../../scripts/corpus/precision-nodes.js";
import { random, runOrt } from "../helpers/ort.js";

const F16 = DataType.FLOAT16;
const BF16 = DataType.BFLOAT16;
const work = mkdtempSync(join(tmpdir(), "to-half-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const python = findPython(["onnx"]);

/** ONNX's full checker's verdict (null: passes), or undefined without the venv. */
function fullCheck(m: Model): string | null | undefined {
  if (!python) return undefined;
  const file = join(work, `m${Math.random().toString(36).slice(2)}.onnx`);
  writeFileSync(file, encodeModel(m));
  const r = spawnSync(python, [join(__dirname, "../../scripts/corpus/check.py")], {
    input: `${file}\n`,
    encoding: "utf8",
  });
  const answer = JSON.parse(r.stdout.trim()) as { ok: boolean; error?: string };
  return answer.ok ? null : answer.error!;
}

function half(m: Model, req: Partial<PrecisionRequest> = {}) {
  const r = precision(m, { to: "float16", ...req });
  if (!r.ok) throw new Error(r.notes.map((n) => n.message).join("; "));
  return r;
}

/** No Cast reads a float Cast's output (the model's own int64 pairs aside); topological order. */
function wellFormed(m: Model) {
  const g = m.graph;
  const floats = new Set<number>([DataType.FLOAT, F16, BF16]);
  const castOut = new Set(
    g.nodes
      .filter((n) => n.opType === "Cast" && floats.has(Number(n.attributes[0]!.value)))
      .map((n) => n.outputs[0]),
  );
  for (const n of g.nodes)
    if (n.opType === "Cast")
      expect(castOut.has(n.inputs[0]), `Cast after Cast at ${n.inputs[0]}`).toBe(false);
  expect(topologicalOrder(g)).toEqual(g.nodes.map((_, i) => i));
  if (python) expect(fullCheck(m)).toBeNull();
}

const elem = (m: Model, name: string) => {
  const v = [...m.graph.inputs, ...m.graph.outputs, ...m.graph.valueInfo].find(
    (x) => x.name === name,
  );
  return v?.type?.kind === "tensor" ? v.type.elemType : undefined;
};

const CNN = `<ir_version: 8, opset_import: ["" : 17]>
g (float[1,2,4,4] x) => (float[1,3,8,8] y, int64[4] s) <float[3,2,3,3] w = {${Array.from({ length: 54 }, (_, i) => ((i % 7) - 3) / 10).join(", ")}}, float[4] scales = {1, 1, 2, 2}> {
  c = Conv <pads = [1, 1, 1, 1]> (x, w)
  r = Relu (c)
  f = Cast <to = 1> (r)
  z = Resize <mode = "linear"> (f, , scales)
  k = ConstantOfShape <value = float[1] {0.5}> (s)
  s = Shape (z)
  y = Add (z, k)
}`;

describe("to-half", () => {
  it("makes a convolution float16, keeps Resize's scales and the model's interface float32", async () => {
    const m = parseModelText(CNN);
    const r = half(m);
    const g = r.model.graph;
    expect(g.initializers.find((t) => t.name === "w")!.dataType).toBe(F16);
    // Resize-13's scales are tensor(float) by its schema: they stay.
    expect(g.initializers.find((t) => t.name === "scales")!.dataType).toBe(DataType.FLOAT);
    expect(elem(r.model, "x")).toBe(DataType.FLOAT);
    expect(elem(r.model, "y")).toBe(DataType.FLOAT);
    // The Cast to float becomes a no-op Cast to float16 and is dropped; ConstantOfShape's value
    // is float16; one Cast in (x), one out (y).
    const cos = g.nodes.find((n) => n.opType === "ConstantOfShape")!;
    expect((cos.attributes[0]!.value as { dataType: number }).dataType).toBe(F16);
    expect(g.nodes.filter((n) => n.opType === "Cast")).toHaveLength(2);
    expect(r.report.casts).toBe(2);
    // 54 weights in float16 (108 bytes), 4 scales in float32 (16 bytes).
    expect(r.report.halfWeightShare).toBeCloseTo(108 / 124, 6);
    wellFormed(r.model);
    const x = random(DataType.FLOAT, [1, 2, 4, 4], 3);
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    expect(normError(b.y!, a.y!)).toBeLessThan(1e-3);
    expect(b.s).toEqual(a.s);
    expect(r.report.error!).toBeLessThan(1e-3);
  });

  it("without --keep-io-types, the inputs and outputs are half too", async () => {
    const m = parseModelText(CNN);
    const r = half(m, { keepIo: false });
    expect(elem(r.model, "x")).toBe(F16);
    expect(elem(r.model, "y")).toBe(F16);
    expect(r.model.graph.nodes.filter((n) => n.opType === "Cast")).toHaveLength(0);
    wellFormed(r.model);
    const x = random(DataType.FLOAT, [1, 2, 4, 4], 3);
    const xh = random(F16, [1, 2, 4, 4], 3);
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x: xh })];
    expect(normError(b.y!, a.y!)).toBeLessThan(2e-3);
  });

  it("keeps float32 a node whose values pass 65,504, and says so", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[8] x) => (float[8] y) <float big = {1000}, float small = {0.001}> {
  a = Mul (x, big)
  b = Mul (a, big)
  c = Mul (b, small)
  d = Mul (c, small)
  y = Tanh (d)
}`);
    const r = half(m);
    const kept = r.report.kept.map((k) => k.node);
    expect(kept.some((k) => k.includes("(Mul)"))).toBe(true);
    expect(r.report.kept.every((k) => /beyond float16's 65,504/.test(k.reason))).toBe(true);
    expect(r.notes.some((n) => /kept float32: value 'b' reaches/.test(n.message))).toBe(true);
    wellFormed(r.model);
    const x = random(DataType.FLOAT, [8], 1);
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    expect(normError(b.y!, a.y!)).toBeLessThan(1e-2);
  });

  it("keeps the readers of a stored value beyond half's range, or clamps it with --clamp", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2] x) => (float[2] y) <float[2] w = {1e5, 1}> {
  y = Min (x, w)
}`);
    const kept = half(m, { verify: false });
    expect(kept.report.kept[0]!.reason).toMatch(/'w', which holds 1\.000e\+5.*--clamp/);
    expect(kept.model.graph.initializers[0]!.dataType).toBe(DataType.FLOAT);
    const clamped = half(m, { verify: false, clamp: true });
    expect(clamped.report.kept).toEqual([]);
    const w = clamped.model.graph.initializers[0]!;
    expect(w.dataType).toBe(F16);
    expect(run(clamped.model, { x: random(DataType.FLOAT, [2], 1) }).y!.shape).toEqual([2]);
  });

  it("moves back to float32 the node with the largest own error until the outputs are within the bound", async () => {
    // x + 1000 in float16 keeps half a unit: the Add and the Sub lose x's digits.
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[64] x) => (float[64] y) <float k = {1000}> {
  a = Add (x, k)
  b = Sub (a, k)
  y = Mul (b, x)
}`);
    const r = half(m, { maxError: 1e-3 });
    const moved = r.report.kept.filter((k) => /own error/.test(k.reason));
    expect(moved.length).toBeGreaterThan(0);
    expect(r.report.error!).toBeLessThanOrEqual(1e-3);
    wellFormed(r.model);
    const x = random(DataType.FLOAT, [64], 5);
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    expect(normError(b.y!, a.y!)).toBeLessThanOrEqual(1e-3);
    // Unverified, the same model is further off (in the interpreter, which rounds each float16
    // output as docs/semantics.md says; onnxruntime's CPU computes this chain in float32).
    const blind = half(m, { verify: false });
    expect(normError(run(blind.model, { x }).y!, run(m, { x }).y!)).toBeGreaterThan(1e-3);
  });

  it("reads the two inputs of Equal in one type when one is half and the other stays float32", async () => {
    // Swin's attention mask: Equal(Sub(…), a Constant only Equal reads). Equal's T is carried by
    // no output, so each input is read as it is: the two must end in one type.
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[6] x) => (bool[6] y) <float[1] c = {2}> {
  d = Sub (x, c)
  k = Constant <value = float[1] {0}> ()
  y = Equal (d, k)
}`);
    const r = half(m);
    wellFormed(r.model);
    // The Constant only Equal reads is stored half beside the half Sub: no Cast between.
    const eq = r.model.graph.nodes.find((n) => n.opType === "Equal")!;
    const producers = eq.inputs.map((x) => r.model.graph.nodes.find((n) => n.outputs[0] === x)!);
    expect(producers.map((n) => n.opType)).toEqual(["Sub", "Constant"]);
    expect(producers[1]!.attributes[0]!.value).toMatchObject({ dataType: F16 });
    const x = { dtype: DataType.FLOAT, shape: [6], data: Float32Array.of(0, 1, 2, 3, 2, -2) };
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    expect([...(b.y!.data as Uint8Array)]).toEqual([...(a.y!.data as Uint8Array)]);
    expect(run(r.model, { x }).y).toEqual(run(m, { x }).y);
  });

  it("keeps what --keep-ops and --keep-nodes name, and refuses a node name the model lacks", () => {
    const m = parseModelText(CNN);
    const r = half(m, { keepOps: ["Conv"], verify: false });
    expect(r.report.kept.map((k) => k.reason)).toEqual(["its op is named by --keep-ops"]);
    expect(r.model.graph.initializers.find((t) => t.name === "w")!.dataType).toBe(DataType.FLOAT);
    wellFormed(r.model);
    const bad = precision(m, { to: "float16", keepNodes: ["nope"] });
    expect(!bad.ok && bad.notes[0]!.message).toMatch(/no node is named 'nope'/);
  });

  it("bfloat16: passes ONNX's full checker, and the interpreter's outputs stay within the bound", () => {
    // Conv takes bfloat16 from opset 22 only: at 17 it stays float32 (by its schema), MatMul does not.
    const m = parseModelText(
      `<ir_version: 8, opset_import: ["" : 17]>
g (float[4,8] x) => (float[4,3] y) <float[8,3] w = {${Array.from({ length: 24 }, (_, i) => ((i % 5) - 2) / 7).join(", ")}}> {
  h = MatMul (x, w)
  y = Sigmoid (h)
}`,
    );
    const r = precision(m, { to: "bfloat16" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.graph.initializers[0]!.dataType).toBe(BF16);
    expect(r.report.half).toBe(2);
    wellFormed(r.model);
    const x = random(DataType.FLOAT, [4, 8], 3);
    // The reference: the float32 model (the interpreter sums MatMul's products in float64).
    const ref = run(m, { x });
    const got = run(r.model, { x });
    expect(outputsError(got, ref)).toBeLessThan(1e-2);
    expect(outputsError(got, ref)).toBeGreaterThan(0);
    // Conv at opset 17 has no bfloat16: kept, named by its schema.
    const conv = precision(parseModelText(CNN), { to: "bfloat16", verify: false });
    expect(conv.ok && conv.report.kept.find((k) => /Conv/.test(k.node))?.reason).toMatch(
      /Conv-11 takes no bfloat16 for T/,
    );
  });

  it("reads RMSNormalization's X in Y's type, as ONNX's shape inference types Y", () => {
    // The schema binds X to T and Y to V (the scale's); ONNX's inference gives Y X's type, and its
    // full checker refused the Llama (opset 23) made bfloat16 where X came from a float32 node.
    const m = parseModelText(`<ir_version: 10, opset_import: ["" : 23]>
g (float[2,8] x) => (float[2,8] y) <float[8] s = {1, 0.5, 2, 1, 1, 0.25, 1, 1}> {
  a = Add (x, x)
  y = RMSNormalization <axis = -1> (a, s)
}`);
    for (const to of ["float16", "bfloat16"] as const) {
      const r = precision(m, { to, keepOps: ["Add"], verify: false });
      if (!r.ok) throw new Error(r.notes[0]!.message);
      const g = r.model.graph;
      const rms = g.nodes.find((n) => n.opType === "RMSNormalization")!;
      const cast = g.nodes.find((n) => n.outputs[0] === rms.inputs[0])!;
      expect(cast.opType).toBe("Cast");
      expect(cast.attributes[0]!.value).toBe(BigInt(to === "float16" ? F16 : BF16));
      expect(fullCheck(r.model) ?? null).toBeNull();
      const x = random(DataType.FLOAT, [2, 8], 5);
      expect(outputsError(run(r.model, { x }), run(m, { x }))).toBeLessThan(1e-2);
    }
  });

  it("lower --target tensorrt --precision float16 keeps the ops TensorRT runs in float32 only", async () => {
    const m = parseModelText(CNN);
    const r = lower(m, { profile: loadProfile("tensorrt"), precision: { to: "float16" } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.notes.some((n) => /float16: \d+ node\(s\) made float16/.test(n.message))).toBe(true);
    wellFormed(r.model);
    const x = random(DataType.FLOAT, [1, 2, 4, 4], 3);
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    expect(normError(b.y!, a.y!)).toBeLessThan(1e-2);
  });
});

describe("to-half on the deployed corpus's float32 models", () => {
  for (const name of ["cnn_fp32", "bert_fp32", "lstm_fp32", "llama_fp32"])
    it(`${name}: valid, runs on onnxruntime, within the bound`, async () => {
      const m = loadModel(join(__dirname, "../data/deployed", name, "model.onnx"));
      const r = half(m);
      wellFormed(r.model);
      expect(r.report.error!).toBeLessThanOrEqual(1e-2);
      expect(r.report.halfWeightShare).toBeGreaterThan(0.9);
      const inputs = randomInputs(m, 0) as Record<string, RTensor>;
      const [a, b] = [await runOrt(m, inputs), await runOrt(r.model, inputs)];
      expect(outputsError(b, a)).toBeLessThanOrEqual(1e-2);
    });
});

describe("to-half: what onnxruntime's CPU provider computes", () => {
  it("is the float32 model with the stored half tensors rounded: the verification's second measure", async () => {
    const m = parseModelText(CNN);
    const r = half(m, { verify: false });
    const x = random(DataType.FLOAT, [1, 2, 4, 4], 4);
    const onOrt = await runOrt(r.model, { x });
    const rounded = run(storedRounded(m, r.model, { to: F16 }), { x });
    // Only the weights are rounded: the interpreter's run of that float32 model is onnxruntime's
    // output to float32's digits, where the half model in the interpreter rounds every op.
    expect(normError(onOrt.y!, rounded.y! as RTensor)).toBeLessThan(1e-6);
    const everyOp = run(r.model, { x });
    expect(normError(everyOp.y! as RTensor, rounded.y! as RTensor)).toBeGreaterThan(1e-5);
  });

  const mobilenet = join(__dirname, "../../corpus/exported/mobilenet_v3_small_dynamo/model.onnx");
  it.skipIf(!existsSync(mobilenet))(
    "mobilenet_v3_small: within the bound in the interpreter and on onnxruntime, over 90% of weight bytes half",
    async () => {
      const m = loadModel(mobilenet);
      const r = half(m);
      expect(r.report.error!).toBeLessThanOrEqual(1e-2);
      expect(r.report.storedError!).toBeLessThanOrEqual(1e-2);
      expect(r.report.halfWeightShare).toBeGreaterThanOrEqual(0.9);
      const inputs = randomInputs(m, 0) as Record<string, RTensor>;
      const [a, b] = [await runOrt(m, inputs), await runOrt(r.model, inputs)];
      const onOrt = outputsError(b, a);
      expect(onOrt).toBeLessThanOrEqual(1e-2);
      // onnxruntime's CPU output is the stored-rounded measure (every op in float32).
      expect(Math.abs(onOrt - r.report.storedError!)).toBeLessThan(1e-4);
    },
    300_000,
  );
});

describe("to-half around subgraphs", () => {
  it("keeps an If float32 and the values its branches read, and onnxruntime runs the result", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x, bool c) => (float[4] y) <float[4] w = {0.5, -1, 2, 0.25}> {
  a = Mul (x, w)
  b = Relu (a)
  r = If (c) <then_branch = t () => (float[4] o) { o = Add (b, a) }, else_branch = e () => (float[4] o2) { o2 = Sub (b, a) }>
  y = Mul (r, w)
}`);
    const r = half(m, { keepIo: false });
    const reasons = r.report.kept.map((k) => `${k.node}: ${k.reason}`);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\(If\): it holds a subgraph/),
        expect.stringMatching(/\(Mul\): its output 'a' is read inside a subgraph/),
        expect.stringMatching(/\(Relu\): its output 'b' is read inside a subgraph/),
      ]),
    );
    wellFormed(r.model);
    const x = random(F16, [4], 2);
    const xf = random(DataType.FLOAT, [4], 2);
    for (const cv of [0, 1]) {
      const c = { dtype: DataType.BOOL, shape: [], data: Uint8Array.of(cv) };
      const [a, b] = [await runOrt(m, { x: xf, c }), await runOrt(r.model, { x, c })];
      expect(normError(b.y!, a.y!)).toBeLessThan(2e-3);
    }
  });
});

describe("bfloat16 node by node against the float64 reference (scripts/corpus/precision-nodes.ts)", () => {
  // A float32 model of 45 nodes at opset 22 (so Conv takes bfloat16 too: Conv, Relu, Sigmoid,
  // HardSwish, MaxPool, AveragePool, Gemm, Softmax, LayerNormalization, MatMul, Gelu, Tanh, Exp,
  // ReduceMean, Pow, Sqrt, Div, Erf, Gather, Concat, Slice, ReduceMax, Log …) made bfloat16 by
  // `precision --to bfloat16` (model_fp32.onnxtxt → model.onnx, nothing kept), with seeded
  // inputs and the reference's values of every node (`precision.py values`) committed beside it.
  const dir = join(__dirname, "../data/bf16_nodes");
  const model = loadModel(join(dir, "model.onnx"));
  const inputs = Object.fromEntries(
    requiredInputs(model).map((v, i) => [
      v.name,
      decodeTensorProto(readFileSync(join(dir, `input_${i}.pb`))).tensor,
    ]),
  );
  const values = join(dir, "values");

  it("every node of the committed model gives the reference within one bfloat16 ulp", () => {
    const r = checkNodes(model, inputs, values);
    expect(r.checked).toBe(45);
    expect(r.failing.map((f) => f.node)).toEqual([]);
    expect(r.worstUlps).toBeLessThanOrEqual(1);
    expect(r.worstFloat32).toBeLessThanOrEqual(1e-5);
    expect(r.bf16Elements).toBeGreaterThan(2000);
  });

  it("names the node whose bfloat16 evaluation is wrong", () => {
    // LayerNormalization with another ε, Softmax over axis 1: each is that node evaluated wrongly
    // on the reference's inputs, and only that node fails (axis 1 of the classifier's [1,10]
    // Softmax is its last axis: right).
    const wrong = (op: string, attr: string, value: number): Model => ({
      ...model,
      graph: {
        ...model.graph,
        nodes: model.graph.nodes.map((n) =>
          n.opType === op
            ? {
                ...n,
                attributes: [
                  ...n.attributes.filter((a) => a.name !== attr),
                  attr === "epsilon"
                    ? { name: attr, type: "FLOAT", value }
                    : { name: attr, type: "INT", value: BigInt(value) },
                ],
              }
            : n,
        ),
      },
    });
    const eps = checkNodes(wrong("LayerNormalization", "epsilon", 0.05), inputs, values);
    expect(eps.failing.map((f) => f.op)).toEqual(["LayerNormalization"]);
    expect(eps.failing[0]!.ulps).toBeGreaterThan(1);
    const axis = checkNodes(wrong("Softmax", "axis", 1), inputs, values);
    expect(axis.failing.map((f) => f.op)).toEqual(["Softmax"]);
  });

  it.skipIf(!python)("the committed values are the reference's (precision.py values)", () => {
    const fresh = referenceValues(python!, model, inputs, mkdtempSync(join(work, "nodes-")));
    const index = JSON.parse(readFileSync(join(values, "values.json"), "utf8")) as Record<
      string,
      string
    >;
    expect(JSON.parse(readFileSync(join(fresh, "values.json"), "utf8"))).toEqual(index);
    for (const file of Object.values(index))
      expect(
        Buffer.compare(readFileSync(join(fresh, file)), readFileSync(join(values, file))),
        file,
      ).toBe(0);
  });
});

/** precision --to bfloat16 on `m`, then every node and the whole model against the reference. */
function bfloat16AgainstReference(m: Model) {
  const r = precision(m, { to: "bfloat16" });
  if (!r.ok) throw new Error(r.notes[0]!.message);
  wellFormed(r.model);
  const inputs = randomInputs(m, 0) as Record<string, RTensor>;
  const values = referenceValues(python!, r.model, inputs, mkdtempSync(join(work, "ref-")));
  const nodes = checkNodes(r.model, inputs, values);
  const got = run(r.model, inputs);
  const whole = Math.max(
    ...Object.entries(nodes.outputs).map(([name, ref]) => normError(got[name]!, ref)),
  );
  return { nodes, whole };
}

describe.skipIf(!python)("bfloat16 against the float64 reference (ONNX's evaluator)", () => {
  for (const name of ["bert_fp32", "cnn_fp32", "lstm_fp32"])
    it(`${name}: every node within one bfloat16 ulp of the reference, the outputs within two units`, () => {
      const m = loadModel(join(__dirname, "../data/deployed", name, "model.onnx"));
      const { nodes, whole } = bfloat16AgainstReference(m);
      expect(nodes.failing.map((f) => `${f.node}: ${f.ulps} ulps ${f.problem ?? ""}`)).toEqual([]);
      expect(nodes.checked).toBeGreaterThan(10);
      expect(whole).toBeLessThanOrEqual(2 ** -7);
    });

  // The CNNs: whole-model comparison cannot tell a wrong op from a float32 Conv's sum flipping a
  // bfloat16 rounding (resnet18 3.1e-3, mobilenet_v3_small 5.8e-3 from the reference); node by
  // node, every node passes.
  for (const name of ["resnet18_dynamo", "mobilenet_v3_small_dynamo"]) {
    const file = join(__dirname, "../../corpus/exported", name, "model.onnx");
    it.skipIf(!existsSync(file))(
      `${name} (corpus): every node within one bfloat16 ulp of the reference`,
      () => {
        const { nodes, whole } = bfloat16AgainstReference(loadModel(file));
        expect(nodes.failing.map((f) => `${f.node}: ${f.ulps} ulps ${f.problem ?? ""}`)).toEqual(
          [],
        );
        expect(nodes.checked).toBeGreaterThan(80);
        expect(whole).toBeLessThan(1e-2);
      },
      600_000,
    );
  }
});

describe("to-half: a normalization's ε onnxruntime would misread", () => {
  // RMS normalization with ε = 1e-6 over small activations (a Llama's embeddings): onnxruntime's
  // fusion of the pattern reads ε only from a float32 constant and takes 1e-5 otherwise.
  const rms = (eps: string) =>
    parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[1,4,32] x) => (float[1,4,32] y) <float two = {2}, float eps = {${eps}}, float one = {1}, float[32] w = {${Array(32).fill(1).join(",")}}> {
  p = Pow (x, two)
  m = ReduceMean <axes = [-1]> (p)
  a = Add (m, eps)
  s = Sqrt (a)
  r = Div (one, s)
  n = Mul (x, r)
  y = Mul (w, n)
}`);
  const x = random(DataType.FLOAT, [1, 4, 32], 3);
  for (let i = 0; i < x.data.length; i++) (x.data as Float32Array)[i]! *= 0.02;
  const inputs = { x };

  it("keeps the ε's Add float32 where the misread ε would matter, and onnxruntime agrees", async () => {
    const m = rms("1e-6");
    const r = half(m, { inputs });
    expect(r.report.kept.map((k) => k.reason)).toEqual([
      expect.stringMatching(/ε 1\.000e-6 would be read as 1e-5 by onnxruntime/),
    ]);
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    expect(normError(b.y!, a.y!)).toBeLessThan(1e-3);
  });

  it("keeps nothing where ε is the fusion's default, or in bfloat16", () => {
    expect(half(rms("1e-5"), { inputs }).report.kept).toEqual([]);
    expect(half(rms("1e-6"), { inputs, to: "bfloat16" }).report.kept).toEqual([]);
  });
});
