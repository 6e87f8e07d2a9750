// The first divergence (src/app/divergence.ts): distances in ulps of each element type, the
// first diverging nodes of a run against another, and scripts/divergence.ts on a deployed model
// against onnxruntime-node with every intermediate value exposed.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstDivergences, valueDivergence } from "../../src/app/divergence.js";
import { run } from "../../src/interp/executor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import { DEPLOYED_DIR, loadDeployed } from "../../scripts/corpus/deployed-judge.js";

const f32 = (bits: number[]): RTensor => ({
  dtype: DataType.FLOAT,
  shape: [bits.length],
  data: new Float32Array(Uint32Array.from(bits).buffer),
});

describe("valueDivergence", () => {
  it("counts ulps of float32 across zero, subnormals, NaN and the infinities", () => {
    const v = valueDivergence(
      "v",
      f32([0x3f800000, 0x80000000, 0x00000001, 0x7fc00000, 0x7f800000, 0x7f7fffff]),
      f32([0x3f800001, 0x00000000, 0x80000001, 0xffc00001, 0x7f800000, 0x7f800000]),
    );
    // 1 ulp; −0 = +0; the smallest subnormals of either sign are 2 apart; NaN = NaN; 1 ulp to Inf
    expect(v).toMatchObject({ count: 3, total: 6, ulps: 2 });
    expect(valueDivergence("v", f32([0x7fc00000]), f32([0])).ulps).toBe(Infinity);
    expect(valueDivergence("v", f32([0x3f800000]), f32([0x3f800003]), 2).count).toBe(1);
    expect(valueDivergence("v", f32([0x3f800000]), f32([0x3f800002]), 2).count).toBe(0);
  });
  it("counts float16 ulps, integer steps and double ulps; shapes that differ are infinite", () => {
    const h = (b: number[]): RTensor => ({
      dtype: DataType.FLOAT16,
      shape: [b.length],
      data: Uint16Array.from(b),
    });
    expect(valueDivergence("h", h([0x3c00, 0x8001]), h([0x3c02, 0x0001]))).toMatchObject({
      count: 2,
      ulps: 2,
      abs: 2 ** -9,
    });
    const u8 = (v: number[]): RTensor => ({
      dtype: DataType.UINT8,
      shape: [v.length],
      data: Uint8Array.from(v),
    });
    expect(valueDivergence("q", u8([0, 128, 255]), u8([1, 128, 250]))).toMatchObject({
      count: 2,
      ulps: 5,
    });
    const d = (v: number[]): RTensor => ({
      dtype: DataType.DOUBLE,
      shape: [v.length],
      data: Float64Array.from(v),
    });
    expect(valueDivergence("d", d([1, 2]), d([1 + 2 ** -52, 2])).ulps).toBe(1);
    expect(valueDivergence("s", f32([0, 0]), f32([0])).ulps).toBe(Infinity);
  });
});

describe("firstDivergences", () => {
  const m = loadDeployed("mobilenet_qop_per_channel");
  const g = m.model.graph;
  const all = run(m.model, m.sets[0]!.inputs, { keepIntermediates: true });

  it("finds the node whose output was changed, not the nodes after it", () => {
    const k = g.nodes.findIndex((n) => n.opType === "HardSwish");
    const name = g.nodes[k]!.outputs[0]!;
    const t = all[name] as RTensor;
    const data = (t.data as Float32Array).slice();
    data[7] = Math.fround(data[7]! * (1 + 2 ** -20));
    // what the other run would have computed from the changed value on
    const other = { ...all, [name]: { ...t, data } };
    const after = run(m.model, m.sets[0]!.inputs, { keepIntermediates: true });
    expect(firstDivergences(g, all, after)).toEqual([]);
    const d = firstDivergences(g, all, other);
    expect(d.map((x) => x.index)).toEqual([k]);
    expect(d[0]!.outputs[0]).toMatchObject({ name, count: 1, total: data.length });
    // a value known to diverge from an earlier window hides what follows from it
    const diverged = new Set([g.nodes[k]!.inputs[0]!]);
    expect(firstDivergences(g, all, other, { diverged })).toEqual([]);
    expect(diverged.has(name)).toBe(true);
  });

  it("scripts/divergence.ts: no HardSigmoid or HardSwish diverges from onnxruntime, and the logits are its bytes", () => {
    const r = spawnSync(
      "npx",
      [
        "tsx",
        "scripts/divergence.ts",
        join(DEPLOYED_DIR, "mobilenet_qop_per_channel", "model.onnx"),
        "--show",
        "100",
        "--window",
        "60",
      ],
      { encoding: "utf8" },
    );
    expect(r.stderr).not.toMatch(/divergence:/);
    const out = r.stdout;
    expect(out).toMatch(/175 nodes; inputs: .*test_data_set_0; threshold 0 ulps/);
    expect(out).toContain("graph output 'logits': 0 of 10 differ, largest 0 ulps");
    for (const line of out.split("\n").filter((l) => /^ {2}#\d+ /.test(l)))
      expect(line).not.toMatch(/HardSigmoid|HardSwish/);
    // every node line is followed by its outputs' counts
    expect(out).toMatch(/ {6}'[^']+': \d+ of \d+ differ, largest \d+ ulps? \(abs /);
  }, 120_000);
});
