// legalize-int64: int64 computation made int32 where the values are shown to fit (constants,
// static dims, an index within its axis), the interface kept, Casts only at the edges of the
// changed piece, the numbers equal on onnxruntime; a value with no bound stays int64, named in a
// warning; `lower --target` runs it where the profile refuses int64 (CoreML's Range, a
// ConstantOfShape that makes no int64).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { lower } from "../../src/app/transform.js";
import { analysisOf } from "../../src/check/infer.js";
import { integerBounds } from "../../src/check/int-ranges.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/tensor.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { legalizeInt64, runPass } from "../../src/passes/index.js";
import { classifyModel } from "../../src/targets/classify.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { loadModel } from "../../src/io/files.js";
import { parseDims, randomInputs } from "../../src/app/index.js";
import { DTYPES } from "../../src/ir/dtype.js";
import { plainOpsetProfile } from "../../src/targets/profile.js";
import { runCli } from "../helpers/cli.js";
import { random, runOrt } from "../helpers/ort.js";

const I64 = DataType.INT64;

/**
 * A CoreML profile with Range as the EP's builder takes it (int32, float16, float): onnxruntime
 * 1.30's table, which the shipped profile follows, does not list Range.
 */
function coremlWithRange() {
  const p = loadProfile("coreml");
  return {
    ...p,
    ops: {
      ...p.ops,
      Range: {
        domain: "",
        versions: [{ from: 11 }],
        types: ["float", "float16", "int32"],
        constraints: [],
      },
    },
  };
}
const ints = (shape: number[], v: number[]): RTensor => ({
  dtype: I64,
  shape,
  data: BigInt64Array.from(v, BigInt),
});

async function sameOnOrt(a: Model, b: Model, feeds: Record<string, RTensor>) {
  const [x, y] = [await runOrt(a, feeds), await runOrt(b, feeds)];
  for (const o of a.graph.outputs) {
    expect(y[o.name]!.dtype, o.name).toBe(x[o.name]!.dtype);
    expect(compareTensors(y[o.name]!, x[o.name]!, { rtol: 0, atol: 0 }), o.name).toBeUndefined();
  }
}

const int64Nodes = (m: Model) => {
  const types = analysisOf(m).types.get(m.graph)!;
  return m.graph.nodes
    .filter((n) => n.opType !== "Cast")
    .filter((n) =>
      [...n.inputs, ...n.outputs].some(
        (x) => (types.get(x) as { elemType?: number })?.elemType === I64,
      ),
    )
    .map((n) => n.opType);
};

// Token ids into an embedding (bounded by its 10 rows), an ArgMax (bounded by its axis) and
// arithmetic on it, and a sum with a constant beyond int32.
const MODEL = `<ir_version: 8, opset_import: ["" : 17]>
g (int64[2,5] ids, float[2,5,10] logits) => (float[2,5,4] e, int64[2,5] pos, int64[2,5] far) <float[10,4] emb = {${Array.from({ length: 40 }, (_, i) => i / 8).join(", ")}}, int64 one = {1}, int64 big = {5000000000}> {
  e = Gather (emb, ids)
  am = ArgMax <axis = 2, keepdims = 0> (logits)
  p1 = Add (am, one)
  pos = Mul (p1, p1)
  far = Add (ids, big)
}`;

describe("legalize-int64", () => {
  it("bounds values from constants, static dims and the indices of a Gather", () => {
    const m = parseModelText(MODEL);
    const b = integerBounds(m.graph, analysisOf(m).types.get(m.graph)!);
    expect(b.get("ids")).toEqual([-10, 9]);
    expect(b.get("am")).toEqual([0, 9]);
    expect(b.get("pos")).toEqual([1, 100]);
    expect(b.get("one")).toEqual([1, 1]);
    expect(b.get("far")).toEqual([5e9 - 10, 5e9 + 9]);
    // A dim that is not static gives no bound.
    const d = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[N,3] x) => (int64[2] s, int64[2] t) { s = Shape (x) t = Shape (s) }`);
    const bd = integerBounds(d.graph, analysisOf(d).types.get(d.graph)!);
    expect(bd.get("s")).toBeUndefined();
    expect(bd.get("t")).toEqual([0, 2]);
    // A 4-bit initializer (a quantized LLM's weights) is bounded by its type, not read.
    const q = parseModelText(`<ir_version: 10, opset_import: ["" : 21]>
g (float[2] x) => (float[2] y) <int4[2] w = {3, -5}, float s = {0.5}> { d = DequantizeLinear (w, s) y = Mul (x, d) }`);
    expect(integerBounds(q.graph, analysisOf(q).types.get(q.graph)!).get("w")).toEqual([-8, 7]);
  });

  it("computes in int32 what fits, keeps the interface and the numbers (onnxruntime)", async () => {
    const m = parseModelText(MODEL);
    const r = runPass(legalizeInt64(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const g = r.model.graph;
    expect(g.inputs.map((v) => v.type)).toEqual(m.graph.inputs.map((v) => v.type));
    expect(g.outputs).toEqual(m.graph.outputs);
    // ArgMax's output is int64 by definition, Add(ids, big) cannot change: the rest is int32.
    expect(int64Nodes(r.model).sort()).toEqual(["Add", "ArgMax"]);
    const casts = g.nodes
      .filter((n) => n.opType === "Cast")
      .map((n) => `${n.inputs[0]}->${n.outputs[0]}`);
    expect(casts.sort()).toEqual(["am->am_i32", "ids->ids_i32", "pos_i32->pos"]);
    expect(g.initializers.find((t) => t.name === "one_i32")?.dataType).toBe(DataType.INT32);
    expect(r.notes.find((n) => n.level === "warning")?.message).toMatch(
      /int64 kept \(T\): 'big' may reach 5000000000/,
    );
    await sameOnOrt(m, r.model, {
      ids: ints([2, 5], [0, 9, 3, -1, -10, 4, 5, 6, 7, 8]),
      logits: random(DataType.FLOAT, [2, 5, 10], 3),
    });
  });

  it("lower --target coreml: Range over int64 made int32 from its bounded inputs", async () => {
    // CoreML's Range takes int32, float16 and float; the limit is the largest ArgMax (≤ 6).
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2,7] x) => (int64[?] r) <int64 zero = {0}, int64 one = {1}> {
  am = ArgMax <axis = 1, keepdims = 0> (x)
  top = ReduceMax <keepdims = 0> (am)
  r = Range (zero, top, one)
}`);
    const p = coremlWithRange();
    const before = classifyModel(m, p).nodes.find((n) => n.op === "Range")!;
    expect(before.reasons.join()).toMatch(/element type int64/);
    const r = lower(m, { profile: p });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const range = r.report.nodes.find((n) => n.op === "Range")!;
    expect(range.reasons.join()).not.toMatch(/int64/);
    expect(r.notes.map((n) => n.message).join("\n")).toMatch(/int64 made int32 in 2 node\(s\)/);
    for (const seed of [1, 2, 3])
      await sameOnOrt(m, r.model, { x: random(DataType.FLOAT, [2, 7], seed) });
  });

  it("keeps the int64 value a subgraph reads from outside", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2,7] x, bool c) => (int64 r, int64 s) <int64 one = {1}> {
  am = ArgMax <axis = 1, keepdims = 0> (x)
  top = ReduceMax <keepdims = 0> (am)
  r = Add (top, one)
  s = If (c) <then_branch = t () => (int64 y) { y = Identity (top) }, else_branch = e () => (int64 z) { z = Identity (one) }>
}`);
    const r = runPass(legalizeInt64(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // ReduceMax computes in int32; its int64 result is still made for the If's branch.
    expect(r.model.graph.nodes.some((n) => n.outputs.includes("top"))).toBe(true);
    for (const c of [true, false])
      await sameOnOrt(m, r.model, {
        x: random(DataType.FLOAT, [2, 7], 4),
        c: { dtype: DataType.BOOL, shape: [], data: Uint8Array.of(c ? 1 : 0) },
      });
  });

  it("clamps Slice's 'to the end' (INT64_MAX) into int32 over static dims", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2,5] x, float[?,5] d) => (float[2,?] y, float[?,?] z) <int64[1] s = {1}, int64[1] e = {9223372036854775807}, int64[1] ax = {1}, int64[1] e2 = {9223372036854775807}> {
  y = Slice (x, s, e, ax)
  z = Slice (d, s, e2, ax)
}`);
    const r = runPass(legalizeInt64(), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const slices = r.model.graph.nodes.filter((n) => n.opType === "Slice");
    // Over x (static dims) the ends are clamped; over d (a dim not static) they stay int64.
    expect(slices.map((n) => n.inputs[2])).toEqual(["e_i32", "e2"]);
    expect(r.model.graph.initializers.find((t) => t.name === "e_i32")!.numbers()).toEqual([
      2 ** 31 - 1,
    ]);
    expect(r.notes.find((n) => n.level === "warning")!.message).toMatch(/'e2' may reach 9223/);
    await sameOnOrt(m, r.model, {
      x: random(DataType.FLOAT, [2, 5], 1),
      d: random(DataType.FLOAT, [3, 5], 2),
    });
  });

  it("leaves int64 with no bound as it is, and says which value", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64 n) => (int64[?] r) <int64 zero = {0}, int64 one = {1}> {
  r = Range (zero, n, one)
}`);
    const r = lower(m, { profile: coremlWithRange() });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.graph.nodes.map((n) => n.opType)).toEqual(["Range"]);
    const w = r.notes.find((n) => /int64 kept/.test(n.message))!;
    expect(w.where).toMatch(/Range/);
    expect(w.message).toMatch(/'n' has no bound known to fit int32/);
  });

  it("a target whose ConstantOfShape makes no int64: it makes int32, a Cast gives int64 back", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[2] s, int64[2,3] y, int64[2] s2) => (int64[2,3] z, float[?,?] f) {
  c = ConstantOfShape <value = int64[1] {7}> (s)
  z = Add (c, y)
  f = ConstantOfShape <value = float[1] {0.5}> (s2)
}`);
    // TensorRT's, with ConstantOfShape's int64 taken out (its matrix has it, spelled "INF64")
    const p = structuredClone(loadProfile("tensorrt"));
    p.ops.ConstantOfShape!.types = p.ops.ConstantOfShape!.types!.filter((t) => t !== "int64");
    const before = classifyModel(m, p).nodes.filter((n) => n.op === "ConstantOfShape");
    // The int64 shape input is ConstantOfShape's by definition: only the int64 output is refused.
    expect(before.map((n) => n.verdict)).toEqual(["unsupported", "supported"]);
    const r = lower(m, { profile: p });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.report.nodes.filter((n) => n.op === "ConstantOfShape").map((n) => n.verdict)).toEqual([
      "supported",
      "supported",
    ]);
    const cos = r.model.graph.nodes.find((n) => n.opType === "ConstantOfShape")!;
    expect((cos.attributes[0]!.value as { dataType: number }).dataType).toBe(DataType.INT32);
    await sameOnOrt(m, r.model, {
      s: ints([2], [2, 3]),
      y: ints([2, 3], [1, -2, 3, 2 ** 40, 5, 6]),
      s2: ints([2], [1, 4]),
    });
  });

  it("the command, with a profile of one's own without int64: BERT's embeddings index in int32", async () => {
    // A made-up NPU: plain opset 17, every element type but int64.
    const plain = plainOpsetProfile(17);
    const types = DTYPES.map((d) => d.name).filter((n) => n !== "int64");
    const npu = {
      ...plain,
      name: "npu",
      backend: "an NPU without int64",
      source: { url: "https://example.invalid/npu-ops", date: "2026-12-05" },
      ops: Object.fromEntries(Object.entries(plain.ops).map(([k, r]) => [k, { ...r, types }])),
    };
    const dir = mkdtempSync(join(tmpdir(), "legalize-int64-"));
    try {
      writeFileSync(join(dir, "npu.json"), JSON.stringify(npu));
      const bert = join(import.meta.dirname, "..", "data", "deployed", "bert_fp32", "model.onnx");
      const out = join(dir, "b.onnx");
      const r = runCli([
        "lower",
        bert,
        "--target",
        join(dir, "npu.json"),
        "--dim",
        "batch=1,sequence=8",
        "-o",
        out,
      ]);
      expect(r.code).toBe(0);
      const said = r.stdout + r.stderr;
      // Word and token-type embeddings (the positions' folded away with the dims): their
      // indices are bounded by the tables.
      expect(said).toMatch(/made int32: 2 nodes rewritten \(Gather 2\); 2 put in \(Cast 2\)/);
      // The mask is an input of the model, Unsqueezed, then cast to float: legalize-cast-first
      // casts it first (the Unsqueeze then runs on float), so no int64 unit is left on its way.
      expect(said).toMatch(/legalized: 2 nodes taken out \(Cast 1, Unsqueeze 1\)/);
      const [a, b] = [loadModel(bert), loadModel(out)];
      const left = classifyModel(b, npu).nodes.filter((n) =>
        n.reasons.some((x) => /element type int64/.test(x)),
      );
      // What stays int64: the inputs' Casts (the mask's to float first).
      expect(left.map((n) => n.op)).toEqual(["Cast", "Cast", "Cast"]);
      const dims = parseDims("batch=1,sequence=8");
      const feeds = randomInputs(a, 4, dims) as Record<string, RTensor>;
      const [x, y] = [await runOrt(a, feeds), await runOrt(b, feeds)];
      for (const k of Object.keys(x))
        expect(compareTensors(y[k]!, x[k]!, { rtol: 1e-5, atol: 1e-6 }), k).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
