// Lowering keeps a function op whose body still needs what the target lacks: Range with inputs
// that are not constant expands into a Loop, which WebNN lacks as much as Range, so `lower
// --target webnn` leaves the Range (one node, its own reason) instead of a Loop and its body. A
// function op whose body the target runs is expanded as before (Celu, which WebNN lacks, into
// Elu and the arithmetic around it). A body whose op the target has only with a constant input
// it would feed a run-time value (DynamicQuantizeLinear's QuantizeLinear, its scale computed from
// x, for NNAPI) is kept for the legalization that writes it in arithmetic. An op of another domain
// (com.microsoft) whose body lacks one plain ai.onnx node is expanded, that node left: BiasGelu and
// Gelu for NNAPI leave their Erf, the rest in the partitions; a body lacking more stays whole. A
// body is judged with the call's constant inputs bound (up to 1 MiB), as lowering folds them:
// DynamicQuantizeLSTM's R column sums fold, its Scan unrolls, and NNAPI takes it all.

import { describe, expect, it } from "vitest";
import { lower } from "../../src/app/transform.js";
import { loadProfile } from "../../src/targets/load.js";
import { opsWorthKeeping } from "../../src/targets/keep.js";
import { parseModelText } from "../../src/text/parse.js";
import { run } from "../../src/interp/executor.js";
import { DataType } from "../../src/ir/types.js";
import { random, runOrt } from "../helpers/ort.js";

const MODEL = `<ir_version: 8, opset_import: ["" : 17]>
g (int64 n, float[3,4] x) => (int64[m] y, float[3,4] z) {
  s = Constant <value = int64 {0}> ()
  d = Constant <value = int64 {1}> ()
  y = Range (s, n, d)
  z = Celu <alpha = 2.0> (x)
}`;

describe("lowering keeps what expansion cannot help", () => {
  const webnn = loadProfile("webnn");

  it("names Range (its body is a Loop) and not Celu for WebNN", () => {
    const m = parseModelText(MODEL);
    expect(opsWorthKeeping(m, webnn, 17)).toEqual([{ domain: "", op: "Range" }]);
  });

  it("lower --target webnn leaves one Range and no Loop; the numbers stay", () => {
    const m = parseModelText(MODEL);
    const r = lower(m, { profile: webnn });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const ops = r.model.graph.nodes.map((n) => n.opType);
    expect(ops).toContain("Range");
    expect(ops).not.toContain("Loop");
    expect(ops).not.toContain("Celu");
    expect(r.report.nodes.filter((n) => n.verdict === "unsupported").map((n) => n.op)).toEqual([
      "Range",
    ]);
    const x = { dtype: 1, shape: [3, 4], data: Float32Array.from({ length: 12 }, (_, i) => i - 6) };
    const n = { dtype: 7, shape: [], data: BigInt64Array.from([5n]) };
    const [a, b] = [run(m, { n, x }), run(r.model, { n, x })];
    expect(b).toEqual(a);
  });

  it("lower --target nnapi: DynamicQuantizeLinear of a run-time value as arithmetic, not a QuantizeLinear of a computed scale; onnxruntime's bytes", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[4,16] x) => (uint8[4,16] q, float s, uint8 z) {
  q, s, z = DynamicQuantizeLinear (x)
}`);
    const r = lower(m, { profile: loadProfile("nnapi") });
    if (!r.ok) throw new Error("lower failed");
    expect(r.model.graph.nodes.map((n) => n.opType)).not.toContain("QuantizeLinear");
    expect(r.report.nodes.filter((n) => n.verdict !== "supported")).toEqual([]);
    const feeds = { x: random(DataType.FLOAT, [4, 16], 3, -2, 5) };
    const [a, b] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    for (const k of ["q", "s", "z"])
      expect(Array.from(b[k]!.data as ArrayLike<number>), k).toEqual(
        Array.from(a[k]!.data as ArrayLike<number>),
      );
  });

  const GELUS = `<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[2,8] x, float[8] b) => (float[2,8] y) {
  h = Mul (x, x)
  g1 = com.microsoft.BiasGelu (h, b)
  a = Add (g1, x)
  g2 = com.microsoft.Gelu (a)
  y = Mul (g2, x)
}`;

  it("lower --target nnapi expands com.microsoft BiasGelu and Gelu, leaving their Erf; same partitions, the numbers stay", async () => {
    const m = parseModelText(GELUS);
    const nnapi = loadProfile("nnapi");
    // NNAPI lacks Erf, and each body lacks only it: nothing of com.microsoft is kept
    expect(opsWorthKeeping(m, nnapi, 17)).toEqual([]);
    const r = lower(m, { profile: nnapi });
    if (!r.ok) throw new Error("lower failed");
    const ops = r.model.graph.nodes.map((n) => `${n.domain ? `${n.domain}.` : ""}${n.opType}`);
    expect(ops.filter((o) => o.startsWith("com.microsoft"))).toEqual([]);
    const left = r.report.nodes.filter((n) => n.verdict !== "supported").map((n) => n.op);
    expect(left).toEqual(["Erf", "Erf"]);
    // kept whole, the two Gelus split the graph into 3 partitions; their Erfs do the same
    expect(r.report.partitions?.count).toBe(3);
    const feeds = {
      x: random(DataType.FLOAT, [2, 8], 5, -3, 3),
      b: random(DataType.FLOAT, [8], 6),
    };
    const [a, c] = [await runOrt(m, feeds), await runOrt(r.model, feeds)];
    const [i, j] = [run(m, feeds), run(r.model, feeds)];
    const norm = (p: ArrayLike<number>, q: ArrayLike<number>) => {
      let [n, d] = [0, 0];
      for (let k = 0; k < p.length; k++) [n, d] = [n + (p[k]! - q[k]!) ** 2, d + p[k]! ** 2];
      return Math.sqrt(n / d);
    };
    const data = (t: unknown) => (t as { data: ArrayLike<number> }).data;
    expect(norm(data(a.y), data(c.y))).toBeLessThan(1e-6);
    expect(norm(data(i.y), data(j.y))).toBeLessThan(1e-6);
    expect(norm(data(a.y), data(j.y))).toBeLessThan(1e-6);
  });

  it("keeps a com.microsoft op whose body lacks a control-flow node (DynamicQuantizeLSTM's Scan) for NNAPI", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[3,1,4] x, int8[1,4,8] w, int8[1,2,8] r, float[1] ws, uint8[1] wz, float[1] rs, uint8[1] rz) => (float[3,1,1,2] y) {
  y = com.microsoft.DynamicQuantizeLSTM <hidden_size = 2> (x, w, r, , , , , , ws, wz, rs, rz)
}`);
    expect(opsWorthKeeping(m, loadProfile("nnapi"), 17)).toEqual([
      { domain: "com.microsoft", op: "DynamicQuantizeLSTM" },
    ]);
  });

  it("lower --target nnapi expands a DynamicQuantizeLSTM whose weights are constants of the model (R over 4096 values, its column sums folded in the judged body too): no Scan, no Round; onnxruntime's bytes, the interpreter within 1e-6", async () => {
    const [H, I] = [33, 4];
    const next = (
      (seed) => () =>
        (seed = (seed * 1103515245 + 12345) % 2 ** 31)
    )(7);
    const codes = (n: number) => Array.from({ length: n }, () => (next() % 255) - 127).join(", ");
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (float[3,2,${I}] x) => (float[3,1,2,${H}] y, float[1,2,${H}] yh)
  <int8[1,${I},${4 * H}] w = {${codes(I * 4 * H)}}, int8[1,${H},${4 * H}] r = {${codes(H * 4 * H)}},
   float[1] ws = {0.02}, int8[1] wz = {0}, float[1] rs = {0.015}, int8[1] rz = {0}> {
  y, yh = com.microsoft.DynamicQuantizeLSTM <hidden_size = ${H}> (x, w, r, , , , , , ws, wz, rs, rz)
}`);
    const r = lower(m, { profile: loadProfile("nnapi") });
    if (!r.ok) throw new Error("lower failed");
    const ops = r.model.graph.nodes.map((n) => `${n.domain ? `${n.domain}.` : ""}${n.opType}`);
    for (const op of ["com.microsoft.DynamicQuantizeLSTM", "Scan", "Round", "ReduceSum"])
      expect(ops).not.toContain(op);
    expect(r.report.nodes.filter((n) => n.verdict !== "supported")).toEqual([]);
    const feeds = { x: random(DataType.FLOAT, [3, 2, I], 4, -2, 2) };
    // a thread per row, as the body quantizes the hidden state (docs/semantics.md)
    const want = await runOrt(m, feeds, { threads: 2 });
    const got = await runOrt(r.model, feeds, { threads: 2 });
    const values = (t: unknown) => Array.from((t as { data: ArrayLike<number> }).data);
    for (const k of ["y", "yh"]) expect(values(got[k]), k).toEqual(values(want[k]));
    // the interpreter (its Sigmoid and Tanh not onnxruntime's): 1.6e-7 norm-wise
    const [p, q] = [values(want.y), values(run(r.model, feeds).y)];
    let [n, d] = [0, 0];
    for (let k = 0; k < p.length; k++) [n, d] = [n + (p[k]! - q[k]!) ** 2, d + p[k]! ** 2];
    expect(Math.sqrt(n / d)).toBeLessThan(1e-6);
  });
});
