// legalize-scan: a Scan of a static length unrolled into its body once a step, for a target
// without Scan: the same bits on onnxruntime-node and in the interpreter before and after (states,
// two scan inputs one reversed and along axis 1, scan outputs reversed and along axis -1, a value
// read from outside, a Constant and an initializer of the body, a state kept, one step); through
// the legalizations, a body op the target lacks but a legalization rewrites (Neg); left with a
// note: a length that is not static, a body op nothing rewrites.

import { describe, expect, it } from "vitest";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { legalizeScan } from "../../src/passes/legalize-scan.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";

const F = DataType.FLOAT;
const noScan = (op: string) => op !== "Scan";

async function sameBits(before: Model, after: Model, feeds: Record<string, RTensor>) {
  expect(after.graph.nodes.map((n) => n.opType)).not.toContain("Scan");
  for (const [a, b] of [
    [await runOrt(before, feeds), await runOrt(after, feeds)],
    [run(before, feeds), run(after, feeds)],
  ]) {
    expect(Object.keys(b!).sort()).toEqual(Object.keys(a!).sort());
    for (const k of Object.keys(a!)) {
      expect(b![k]!.shape, k).toEqual(a![k]!.shape);
      expect([...b![k]!.data], k).toEqual([...a![k]!.data]);
    }
  }
}

const twoInputs = (T: number) =>
  parseModelText(`<ir_version: 8, opset_import: ["" : 14]>
g (float[3] s0, float[${T},3] xs, float[3,${T}] zs, float[3] w) => (float[3] last, float[3] kept, float[${T},3] ys, float[3,${T}] us) {
  last, kept, ys, us = Scan (s0, w, xs, zs) <num_scan_inputs: int = 2, scan_input_directions: ints = [0, 1],
    scan_input_axes: ints = [0, 1], scan_output_directions: ints = [0, 1], scan_output_axes: ints = [0, -1],
    body: graph = step (float[3] s, float[3] same, float[3] x, float[3] z) => (float[3] s_out, float[3] same_out, float[3] y, float[3] u)
      <float[1] half = {0.5}>
    {
      k = Constant <value = float[1] {-1.5}> ()
      same_out = Identity (same)
      a = Mul (x, w)
      b = Add (s, a)
      s_out = Mul (b, half)
      y = Tanh (s_out)
      u = Mul (z, k)
    }>
}`);

describe("legalize-scan", () => {
  it("states, scan inputs and outputs in both directions and along other axes, outer values", async () => {
    for (const T of [5, 1]) {
      const m = twoInputs(T);
      const r = runPass(legalizeScan({ has: noScan }), m);
      if (!r.ok) throw new Error(r.error.message);
      expect(r.modified).toBe(true);
      const feeds = {
        s0: random(F, [3], 1),
        xs: random(F, [T, 3], 2),
        zs: random(F, [3, T], 3),
        w: random(F, [3], 4),
      };
      await sameBits(m, r.model, feeds);
      expect(r.model.graph.nodes.filter((n) => n.opType === "Tanh")).toHaveLength(T);
    }
  });

  it("a body op the target lacks that a legalization rewrites (Neg as Mul by -1)", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 14]>
g (float[2] s0, float[4,2] xs) => (float[2] last, float[4,2] ys) {
  last, ys = Scan (s0, xs) <num_scan_inputs: int = 1,
    body: graph = step (float[2] s, float[2] x) => (float[2] s_out, float[2] y) {
      n = Neg (x)
      s_out = Add (s, n)
      y = Identity (s_out)
    }>
}`);
    const has = (op: string) => op !== "Scan" && op !== "Neg";
    const alone = runPass(legalizeScan({ has }), m);
    expect(alone.ok && alone.modified).toBe(false);
    expect(alone.notes.map((n) => n.message).join()).toMatch(/needs Neg/);
    const r = runPass(legalizeForTarget({ has }), m);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.model.graph.nodes.map((n) => n.opType)).not.toContain("Neg");
    await sameBits(m, r.model, { s0: random(F, [2], 5), xs: random(F, [4, 2], 6) });
  });

  it("leaves a length that is not static and a body op nothing rewrites", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 14]>
g (float[2] s0, float[T,2] xs) => (float[2] last) {
  last = Scan (s0, xs) <num_scan_inputs: int = 1,
    body: graph = step (float[2] s, float[2] x) => (float[2] s_out) { s_out = Add (s, x) }>
}`);
    const r = runPass(legalizeForTarget({ has: noScan }), m);
    expect(r.ok && r.modified).toBe(false);
    expect(r.notes.map((n) => n.message).join()).toMatch(/not static/);
    const r2 = runPass(
      legalizeForTarget({ has: (op) => noScan(op) && op !== "Tanh" }),
      twoInputs(3),
    );
    expect(r2.ok && r2.modified).toBe(false);
    expect(r2.notes.map((n) => n.message).join()).toMatch(/needs Tanh/);
  });
});
