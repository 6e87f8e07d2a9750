// Lowering keeps a function op whose body still needs what the target lacks: Range with inputs
// that are not constant expands into a Loop, which WebNN lacks as much as Range, so `lower
// --target webnn` leaves the Range (one node, its own reason) instead of a Loop and its body. A
// function op whose body the target runs is expanded as before (Celu, which WebNN lacks, into
// Elu and the arithmetic around it). A body whose op the target has only with a constant input
// it would feed a run-time value (DynamicQuantizeLinear's QuantizeLinear, its scale computed from
// x, for NNAPI) is kept for the legalization that writes it in arithmetic.

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
});
