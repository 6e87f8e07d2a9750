// The op legalizations of `lower --target` (src/passes/legalize-*.ts): each rewrite leaves no node
// of its op where the target lacks it, uses only what the target has, and gives onnxruntime's
// numbers bit for bit (the Erf approximation: within its stated bound, measured here).

import { describe, expect, it } from "vitest";
import { lower, simplify } from "../../src/app/transform.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/index.js";
import { approximateErf, ERF_MAX_ERROR } from "../../src/passes/approximate-erf.js";
import { legalizeForTarget } from "../../src/passes/legalize.js";
import { legalizeExpand } from "../../src/passes/legalize-expand.js";
import { legalizeGather } from "../../src/passes/legalize-gather.js";

import { legalizePad } from "../../src/passes/legalize-pad.js";

import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { same, without } from "../helpers/legalize.js";
import { random, runOrt } from "../helpers/ort.js";

const ids = (shape: number[], hi: number, seed: number): RTensor => {
  const t = random(DataType.INT64, shape, seed, 0, hi);
  return t;
};

describe("legalize-gather", () => {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[10,4,6] x, int64[2,3] i) => (float[2,3,4,6] a, float[10,2,3,6] b, float[10,6] c, float[10,4,2] d, float[4,6] e, float[10,4,3] f)
  <int64[2,3] j = {0, 3, -1, 2, 2, 1}, int64 k = {-2}, int64[2] run = {2, 3}, int64 last = {-1}, int64[3] scattered = {5, 0, 5}>
{
  a = Gather (x, i)
  b = Gather <axis = 1> (x, j)
  c = Gather <axis = 1> (x, k)
  d = Gather <axis = -1> (x, run)
  e = Gather (x, last)
  f = Gather <axis = 2> (x, scattered)
}`);
  it("makes Slice (constant runs, one index) and GatherND (the rest); same numbers", async () => {
    const { ops } = await same(m, legalizeGather({ has: without("Gather") }), {
      x: random(DataType.FLOAT, [10, 4, 6], 1),
      i: ids([2, 3], 9, 2),
    });
    expect(ops).not.toContain("Gather");
    expect(ops.filter((o) => o === "GatherND")).toHaveLength(3);
    expect(ops.filter((o) => o === "Slice")).toHaveLength(3);
  });
  it("leaves what the target cannot take", () => {
    const r = runPass(legalizeGather({ has: without("Gather", "GatherND") }), m);
    expect(r.ok && r.model.graph.nodes.filter((n) => n.opType === "Gather")).toHaveLength(3);
  });
});

describe("legalize-gathernd", () => {
  it("GatherND with constant indices as a Gather of the flattened data; same numbers", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[3,4,5] x) => (float[2,5] a, float[1,2,2,3,4,5] b)
  <int64[2,2] i = {2, -1, 0, 1}, int64[1,2,2,1] j = {1, -1, 0, 2}>
{
  a = GatherND (x, i)
  b = GatherND (x, j)
}`);
    const { ops } = await same(m, legalizeForTarget({ has: without("GatherND") }), {
      x: random(DataType.FLOAT, [3, 4, 5], 11),
    });
    expect(ops).not.toContain("GatherND");
  });
});

describe("legalize-pad", () => {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[2,3,5,6] x) => (float[2,3,8,7] a, float[2,3,9,9] b, float[2,3,8,10] c, float[2,3,4,6] d, float[2,3,5,6] e, float[2,3,5,8] f)
  <int64[8] p1 = {0, 0, 1, 0, 0, 0, 2, 1}, float v = {-2.5}, int64[8] p2 = {0, 0, 2, 1, 0, 0, 2, 2},
 int64[8] p3 = {0, 0, 3, 0, 0, 0, 0, 4}, int64[8] crop = {0, 0, -1, 1, 0, 0, 0, -1},
 int64[8] zero = {0, 0, 0, 0, 0, 0, 0, 0}, int64[2] p4 = {2, 0}, int64[1] ax = {-1}>
{
  a = Pad (x, p1, v)
  b = Pad <mode = "reflect"> (x, p2)
  c = Pad <mode = "edge"> (x, p3)
  d = Pad (x, crop)
  e = Pad (x, zero)
  f = Pad <mode = "reflect"> (x, p4, , ax)
}`);
  it("makes Concat and Slice for constant, reflect, edge and crops; same numbers", async () => {
    const { ops } = await same(m, legalizePad({ has: without("Pad") }), {
      x: random(DataType.FLOAT, [2, 3, 5, 6], 3),
    });
    expect(ops).not.toContain("Pad");
    expect(ops).toContain("Identity");
  });
  it("a target with constant-mode Pad only keeps those", () => {
    const r = runPass(legalizePad({ has: () => true }), m);
    expect(r.ok && r.model.graph.nodes.filter((n) => n.opType === "Pad")).toHaveLength(3);
  });
});

describe("legalize-expand, -neg, -reciprocal", () => {
  it("Expand as Mul by ones, Tile for bool, Identity when nothing changes; same numbers", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[1,3,1] x, int64[3,1] n, bool[3,1] b) => (float[2,4,3,5] a, int64[3,4] c, bool[2,3,4] d, float[1,3,1] e)
  <int64[4] s1 = {2, 4, 3, 5}, int64[2] s2 = {1, 4}, int64[3] s3 = {2, 1, 4}, int64[3] s4 = {1, 1, 1}>
{
  a = Expand (x, s1)
  c = Expand (n, s2)
  d = Expand (b, s3)
  e = Expand (x, s4)
}`);
    const { ops } = await same(m, legalizeExpand({ has: without("Expand") }), {
      x: random(DataType.FLOAT, [1, 3, 1], 4),
      n: ids([3, 1], 100, 5),
      b: random(DataType.BOOL, [3, 1], 6),
    });
    expect(ops.sort()).toEqual(["Identity", "Mul", "Mul", "Reshape", "Tile"]);
  });
  it("Neg as Mul by -1, Reciprocal as Div; same numbers, zeros' signs and infinities kept", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[6] x, int32[3] i) => (float[6] a, int32[3] b, float[6] c) {
  a = Neg (x)
  b = Neg (i)
  c = Reciprocal (x)
}`);
    const x: RTensor = {
      dtype: DataType.FLOAT,
      shape: [6],
      data: new Float32Array([0, -0, Infinity, -3.5, 1e-30, 7]),
    } as RTensor;
    const i: RTensor = {
      dtype: DataType.INT32,
      shape: [3],
      data: new Int32Array([-(2 ** 31), 5, 0]),
    } as RTensor;
    const pass = legalizeForTarget({ has: without("Neg", "Reciprocal") });
    const { ops, model } = await same(m, pass, { x, i });
    expect(ops.sort()).toEqual(["Div", "Mul", "Mul"]);
    const out = await runOrt(model, { x, i });
    expect(Object.is(toFloat64(out.a!)[0], -0)).toBe(true);
  });
});

describe("legalize-isnan", () => {
  it("IsNaN as Not(Equal(x, x)); the same bools for NaN, infinities, zeros, float16 too", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[6] x, float16[3] h) => (bool[6] a, bool[3] b) {
  a = IsNaN (x)
  b = IsNaN (h)
}`);
    const x: RTensor = {
      dtype: DataType.FLOAT,
      shape: [6],
      data: new Float32Array([NaN, -0, Infinity, -Infinity, 1e-45, -NaN]),
    } as RTensor;
    const h: RTensor = {
      dtype: DataType.FLOAT16,
      shape: [3],
      data: new Uint16Array([0x7e00, 0x7c00, 0x3c00]),
    } as RTensor;
    const { ops } = await same(m, legalizeForTarget({ has: without("IsNaN") }), { x, h });
    expect(ops.sort()).toEqual(["Equal", "Equal", "Not", "Not"]);
    expect(runPass(legalizeForTarget({ has: without("IsNaN", "Not") }), m).modified).toBe(false);
  });
});

describe("legalize-hardswish", () => {
  it("HardSwish as x · HardSigmoid<1/6, 1/2>(x), ONNX's body; onnxruntime's numbers", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,8,8] x) => (float[2,3,8,8] y) {
  y = HardSwish (x)
}`);
    const x = random(DataType.FLOAT, [2, 3, 8, 8], 5, -5, 5);
    (x.data as Float32Array).set([-3, 3, 0, -0, Infinity, -Infinity, 2.5, -2.5]);
    const { ops } = await same(m, legalizeForTarget({ has: without("HardSwish", "Max", "Min") }), {
      x,
    });
    expect(ops.sort()).toEqual(["HardSigmoid", "Mul"]);
    const noGate = legalizeForTarget({ has: without("HardSwish", "HardSigmoid") });
    expect(runPass(noGate, m).modified).toBe(false);
  });
});

describe("legalize-mask", () => {
  it("Where over And/Not of masks, with finite constants, as arithmetic; same numbers", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,6] mask, float[1,6,6] s) => (float[1,6,6] y, float[1,6,6] z)
  <bool[6,1] causal = {1, 1, 0, 1, 1, 0}, float zero = {0}, float low = {-3.4028235e38}, float two = {2.5}>
{
  b = Cast <to = 9> (mask)
  a = And (causal, b)
  w = Where (a, zero, low)
  y = Add (s, w)
  n = Not (a)
  w2 = Where (n, two, low)
  z = Add (s, w2)
}`);
    const mask = {
      dtype: DataType.INT64,
      shape: [1, 6],
      data: new BigInt64Array([1n, 1n, 0n, 1n, 0n, 1n]),
    } as RTensor;
    const { ops } = await same(m, legalizeForTarget({ has: without("Where", "And", "Not") }), {
      mask,
      s: random(DataType.FLOAT, [1, 6, 6], 8),
    });
    for (const op of ["Where", "And", "Not"]) expect(ops).not.toContain(op);
  });
  it("leaves a Where whose branches are not shown finite", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (bool[4] c, float[4] x) => (float[4] y) <float inf = {-inf}> { y = Where (c, x, inf) }`);
    const r = runPass(legalizeForTarget({ has: without("Where") }), m);
    expect(r.ok && r.model.graph.nodes.map((n) => n.opType)).toEqual(["Where"]);
  });
});

describe("remove-no-ops (simplify) and reduce-transpose-rank", () => {
  it("no-op Cast/Expand/Pad/Reshape removed, Reshape chains merged, 0 and -1 made explicit", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] x) => (float[6,4] y, float[4,6] z)
  <int64[3] same = {2, 3, 4}, int64[2] mid = {0, -1}, int64[2] last = {-1, 4}, int64[6] zeros = {0, 0, 0, 0, 0, 0},
   int64[2] fin = {4, 6}>
{
  c = Cast <to = 1> (x)
  e = Expand (c, same)
  p = Pad (e, zeros)
  r1 = Reshape (p, mid)
  y = Reshape (r1, last)
  z = Reshape (r1, fin)
}`);
    const r = simplify(m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const g = r.model.graph;
    expect(g.nodes.map((n) => [n.opType, n.inputs[0]])).toEqual([
      ["Reshape", "x"],
      ["Reshape", "x"],
    ]);
    for (const n of g.nodes)
      expect(g.initializers.find((t) => t.name === n.inputs[1])!.numbers()).not.toContain(-1);
    await same(m, { name: "simplify", run: () => r }, { x: random(DataType.FLOAT, [2, 3, 4], 9) });
  });
  it("a Split drops outputs empty along its axis (onnxruntime-web's WebGPU takes none)", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[2,8] x) => (float[2,8] y, float[2,0] k, float[2,2] u, float[2,2] v) <int64[2] rk = {8, 0}, int64[4] parts = {2, 0, 2, 4}> {
  y, k = Split <axis = -1> (x, rk)
  u, e, v, w = Split <axis = 1> (x, parts)
}`);
    const r = simplify(m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const splits = r.model.graph.nodes.filter((n) => n.opType === "Split");
    expect(splits.map((n) => n.outputs)).toEqual([["u", "v", "w"]]);
    await same(m, { name: "simplify", run: () => r }, { x: random(DataType.FLOAT, [2, 8], 4) });
  });
  it("a Concat drops inputs empty along its axis (a rotary embedding's keep part)", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[2,8] x) => (float[2,8] y) <int64[2] parts = {8, 0}> {
  r, k = Split <axis = -1> (x, parts)
  n = Neg (r)
  y = Concat <axis = -1> (n, k)
}`);
    const r = simplify(m);
    expect(r.ok && r.model.graph.nodes.map((n) => n.opType)).toEqual(["Neg"]);
    await same(m, { name: "simplify", run: () => r }, { x: random(DataType.FLOAT, [2, 8], 12) });
  });
  it("a 6-dim window Transpose as a 4-dim one; same numbers", async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[1,14,14,8] x) => (float[1,4,49,8] y)
  <int64[6] win = {1, 2, 7, 2, 7, 8}, int64[4] out = {1, 4, 49, 8}>
{
  w = Reshape (x, win)
  t = Transpose <perm = [0, 1, 3, 2, 4, 5]> (w)
  y = Reshape (t, out)
}`);
    const { model } = await same(m, legalizeForTarget({ has: () => true }), {
      x: random(DataType.FLOAT, [1, 14, 14, 8], 10),
    });
    const t = model.graph.nodes.find((n) => n.opType === "Transpose")!;
    expect(t.attributes[0]!.value).toEqual([0n, 2n, 1n, 3n]);
  });
});

describe("approximate-erf", () => {
  it(`is within ${ERF_MAX_ERROR} of Erf in float32 on onnxruntime (a dense grid over [-6, 6], ±inf, ±0)`, async () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[N] x) => (float[N] y) { y = Erf (x) }`);
    const r = runPass(approximateErf({ has: without("Erf") }), m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.graph.nodes.map((n) => n.opType)).not.toContain("Erf");
    const n = 240001;
    const data = new Float32Array(n + 4);
    for (let k = 0; k < n; k++) data[k] = -6 + (12 * k) / (n - 1);
    data.set([Infinity, -Infinity, 0, -0], n);
    const x = { dtype: DataType.FLOAT, shape: [n + 4], data } as RTensor;
    const [a, b] = [await runOrt(m, { x }), await runOrt(r.model, { x })];
    const [ya, yb] = [toFloat64(a.y!), toFloat64(b.y!)];
    let worst = 0;
    for (let k = 0; k < ya.length; k++) worst = Math.max(worst, Math.abs(ya[k]! - yb[k]!));
    console.log(`approximate-erf: worst ${worst}`);
    expect(worst).toBeLessThanOrEqual(ERF_MAX_ERROR);
    expect([yb[n], yb[n + 1]]).toEqual([1, -1]);
  });
});

describe("lower runs them", () => {
  it("coreml: a Gather, Pad, Neg and Expand model ends with none of them", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[4,6] x, int64[3] i) => (float[3,8] y, float[2,4,8] z)
  <int64[4] pads = {0, 1, 0, 1}, int64[3] s = {2, 4, 8}>
{
  g1 = Gather (x, i)
  p = Pad (g1, pads)
  y = Neg (p)
  p1 = Pad (x, pads)
  z = Expand (p1, s)
}`);
    const r = lower(m, { profile: loadProfile("coreml") });
    expect(r.ok ? "" : JSON.stringify(r.notes)).toBe("");
    if (!r.ok) return;
    const ops = r.model.graph.nodes.map((n) => n.opType);
    for (const op of ["Gather", "Pad", "Neg", "Expand"]) expect(ops).not.toContain(op);
  });
});
