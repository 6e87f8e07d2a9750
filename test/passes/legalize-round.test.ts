// legalize-round: Round of a clipped float32, for a target without Round, as an Add and a Sub of
// 1.5 · 2^23; the quantizing Round's saturation moved before it; the same bytes on onnxruntime.

import { describe, expect, it } from "vitest";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { QDQ, qdqFeeds as feeds, same, without } from "../helpers/legalize.js";
import { runOrt } from "../helpers/ort.js";

describe("legalize-round", () => {
  it("Round, for a target without it (NNAPI): an Add and a Sub of 1.5 · 2^23 on the clipped value; the same bytes", async () => {
    const { ops } = await same(
      QDQ,
      legalizeForTarget({ has: without("QuantizeLinear", "DequantizeLinear", "Round") }),
      feeds,
    );
    expect(ops.filter((o) => /Quantize|Round/.test(o))).toEqual([]);
    // A Round nothing clips, or whose zero's sign is seen, stays.
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[3] x) => (float[3] y, float[3] z) <float lo = {-9}, float hi = {9}> {
  y = Round (x)
  c = Clip (x, lo, hi)
  z = Round (c)
}`);
    const r = runPass(legalizeForTarget({ has: without("Round") }), m);
    expect(r.ok && r.model.graph.nodes.filter((n) => n.opType === "Round")).toHaveLength(2);
  });

  it("a clipped Round added to or subtracted from a value computed at run time, each sum cast to an integer type: rewritten (the zero's sign lost in the Cast); the same bytes on onnxruntime and the interpreter", async () => {
    // DynamicQuantizeLSTM's codes: zp − Round(Clip(v, −255, 255)), zp a value of the run
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[12] v, float[12] zp) => (uint8[12] q, int32[12] p, float[12] keep)
  <float lo = {-255}, float hi = {255}> {
  c = Clip (v, lo, hi)
  r = Round (c)
  d = Sub (zp, r)
  q = Cast <to: int = 2> (d)
  e = Add (r, zp)
  p = Cast <to: int = 6> (e)
  c2 = Clip (v, lo, hi)
  r2 = Round (c2)
  keep = Add (r2, zp)
}`);
    const r = runPass(legalizeForTarget({ has: without("Round") }), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // the first Round's sums are cast: rewritten; the second's sum is an output (its −0 seen): kept
    expect(r.model.graph.nodes.filter((n) => n.opType === "Round")).toHaveLength(1);
    const f = (xs: number[]): RTensor => ({
      dtype: DataType.FLOAT,
      shape: [12],
      data: new Float32Array(xs),
    });
    const feeds = {
      v: f([-0.3, -0.5, 0.5, 1.5, 2.5, -2.5, 254.5, -300, 300, 0, -0, 7.49]),
      zp: f([0, 0, 0, 3, 0, 255, 0, 255, 0, 0, 0, 128]),
    };
    for (const [before, after] of [
      [await runOrt(m, feeds), await runOrt(r.model, feeds)],
      [run(m, feeds), run(r.model, feeds)],
    ] as Record<string, RTensor>[][])
      for (const k of ["q", "p", "keep"])
        expect(Buffer.from(after![k]!.data.buffer).toString("hex"), k).toBe(
          Buffer.from(before![k]!.data.buffer).toString("hex"),
        );
  });
});
