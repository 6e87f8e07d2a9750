// A lowered model judged by its backend: onnxruntime-web's WebGPU execution provider (the release
// package.json pins) in headless Chromium on SwiftShader (scripts/targets/webgpu-judge.ts). On a
// ViT block exported by torch's dynamo exporter with a dynamic batch
// (test/data/targets/vit_tiny_dynamo.onnx; bench/interp-export.py makes it), onnxruntime places
// the batch's shape arithmetic on CPU as exported; after `lower --target webgpu` with the batch
// fixed, no node is placed on CPU and the outputs on WebGPU are onnxruntime-node's on the
// original. Skipped, with the reason, only where Chromium has no WebGPU.

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  judgeWebgpu,
  ORT_WEB_VERSION,
  parsePlacement,
  WebgpuJudge,
  webgpuUnavailable,
} from "../../scripts/targets/webgpu-judge.js";
import { OPS_FILE, probeOps, type OpsProbe } from "../../scripts/targets/webgpu-ops.js";
import { saveModel } from "../../src/io/files.js";
import { classifyModel } from "../../src/targets/classify.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { runCli } from "../helpers/cli.js";

const root = join(import.meta.dirname, "..", "..");
const model = join(root, "test", "data", "targets", "vit_tiny_dynamo.onnx");
// BERT's attention mask in small: token ids and an int64 padding mask; the mask made bool, moved
// (Flatten, Gather, Reshape), And-ed with a causal mask and turned into the scores' bias. As
// exported, onnxruntime-web 1.30.0's C++ WebGPU kernels take all of the mask's path (bool
// Flatten, Gather, Reshape and And, which 1.24.1's JSEP left on CPU) but the int64 Cast: without
// the provider's int64 option, which a page cannot set, no kernel reads int64 but as an index.
const maskModel = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
mask (int64[1,6] ids, int64[1,6] attention_mask) => (float[1,6,6] y) <
  float[10,4] emb = {${Array.from({ length: 40 }, (_, i) => ((i * 7) % 11) / 10 - 0.5).join(", ")}},
  int64[1,6] at = {0, 1, 2, 3, 4, 5}, int64[3] shape = {1, 1, 6},
  bool[1,6,1] causal_rows = {1, 1, 1, 1, 1, 0}, float zero = {0}, float low = {-10000}> {
  [e_node] e = Gather (emb, ids)
  [et_node] et = Transpose <perm = [0, 2, 1]> (e)
  [s_node] s = MatMul (e, et)
  [b_node] b = Cast <to = 9> (attention_mask)
  [f_node] f = Flatten <axis = 2> (b)
  [g_node] g = Gather <axis = 0> (f, at)
  [r_node] r = Reshape (g, shape)
  [keep_node] keep = And (causal_rows, r)
  [bias_node] bias = Where (keep, zero, low)
  [sb_node] sb = Add (s, bias)
  [y_node] y = Softmax <axis = -1> (sb)
}`);

const why = await webgpuUnavailable();
if (why) console.warn(`webgpu-judge.test.ts skipped: ${why}`);

describe("onnxruntime-web's placement log", () => {
  it("counts the nodes placed on CPU by op, and nothing else", () => {
    const p = parsePlacement([
      "2026-12-07 [V:onnxruntime:, session_state.cc:1307 VerifyEachNodeIsAssignedToAnEp] Node placements",
      "2026-12-07 [V:onnxruntime:, session_state.cc:1313 VerifyEachNodeIsAssignedToAnEp]  Node(s) placed on [CPUExecutionProvider]. Number of nodes: 3",
      "2026-12-07 [V:onnxruntime:, session_state.cc:1316 VerifyEachNodeIsAssignedToAnEp]   Concat (node_Concat_1)",
      "2026-12-07 [V:onnxruntime:, session_state.cc:1316 VerifyEachNodeIsAssignedToAnEp]   Concat (node_Concat_2)",
      "2026-12-07 [V:onnxruntime:, session_state.cc:1316 VerifyEachNodeIsAssignedToAnEp]   Shape (s)",
      "2026-12-07 [V:onnxruntime:, session_state.cc:1313 VerifyEachNodeIsAssignedToAnEp]  Node(s) placed on [JsExecutionProvider]. Number of nodes: 40",
      "2026-12-07 [V:onnxruntime:, session_state.cc:1316 VerifyEachNodeIsAssignedToAnEp]   MatMul (m)",
      "2026-12-07 [I:onnxruntime:, other.cc:1 Other] something else",
    ]);
    expect(p).toEqual({
      byProvider: { CPUExecutionProvider: 3, JsExecutionProvider: 40 },
      cpuNodes: 3,
      cpuOps: { Concat: 2, Shape: 1 },
      cpuNames: ["node_Concat_1", "node_Concat_2", "s"],
    });
    expect(
      parsePlacement([" All nodes placed on [JsExecutionProvider]. Number of nodes: 7"]),
    ).toEqual({
      byProvider: { JsExecutionProvider: 7 },
      cpuNodes: 0,
      cpuOps: {},
      cpuNames: [],
    });
  });
});

describe.skipIf(!!why)("lower --target webgpu, judged by onnxruntime-web on WebGPU", () => {
  let judge: WebgpuJudge;
  const work = mkdtempSync(join(tmpdir(), "webgpu-judge-"));
  beforeAll(async () => {
    judge = await WebgpuJudge.open();
  }, 60_000);
  afterAll(async () => {
    await judge?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("a dynamo-exported ViT block: nodes on CPU as exported, none after lowering, same numbers", async () => {
    const out = join(work, "vit.webgpu.onnx");
    const r = runCli(["lower", model, "--target", "webgpu", "--dim", "batch=2", "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    const v = await judgeWebgpu(judge, { path: model }, out, new Map([["batch", 2]]));
    // as exported, the batch's shape arithmetic runs on CPU (what the test would miss)
    expect(v.before.cpuNodes).toBeGreaterThan(0);
    expect(v.after.cpuNodes, JSON.stringify(v.after.cpuOps)).toBe(0);
    expect(v.after.byProvider.WebGpuExecutionProvider).toBeGreaterThan(0);
    expect(v.error).toBeLessThanOrEqual(1e-4);
  }, 300_000);

  it("the probe's placements (webgpu-ops.json) hold on the release: a few ops at three opsets", async () => {
    const ops = [
      "Abs",
      "IsNaN",
      "Max",
      "Attention",
      "RotaryEmbedding",
      "com.microsoft.MatMulNBits",
    ];
    const opsets = [7, 21, 23];
    const live = await probeOps(judge, { ops, opsets });
    const saved = JSON.parse(readFileSync(OPS_FILE, "utf8")) as OpsProbe;
    const at = (xs: number[]) => xs.filter((o) => opsets.includes(o));
    for (const op of ops) {
      const [l, s] = [live.ops[op]!, saved.ops[op]!];
      expect({ webgpu: l.webgpu, cpu: l.cpu }, op).toEqual({
        webgpu: at(s.webgpu),
        cpu: at(s.cpu),
      });
    }
    // Max-6 (opset 7) has no WebGPU kernel, Max-8 on has; ONNX's Attention-23 none; its
    // RotaryEmbedding-23 one
    expect(live.ops.Max!.cpu).toEqual([7]);
    expect(live.ops.Attention!.cpu).toEqual([23]);
    expect(live.ops.RotaryEmbedding!.webgpu).toEqual([23]);
  }, 300_000);

  it("an int64 mask: our check's unsupported nodes are the judge's nodes on CPU, the int64 Cast alone, before and after lowering", async () => {
    const original = join(work, "mask.onnx");
    saveModel(maskModel, original);
    const report = classifyModel(maskModel, loadProfile("webgpu"));
    const refused = report.nodes
      .filter((n) => n.verdict !== "supported")
      .map((n) => /node '([^']*)'/.exec(n.where)?.[1]);
    const placed = await judge.run(original);
    expect(refused.sort()).toEqual([...placed.cpuNames].sort());
    expect(placed.cpuOps).toEqual({ Cast: 1 });
    expect(placed.byProvider.WebGpuExecutionProvider).toBeGreaterThan(0);
    const out = join(work, "mask.webgpu.onnx");
    const r = runCli(["lower", original, "--target", "webgpu", "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    const v = await judgeWebgpu(judge, { path: original, model: maskModel }, out, new Map());
    // the int64 input's Cast: no WebGPU kernel a page of the release gets reads int64 but as an
    // index
    expect(v.after.cpuOps).toEqual({ Cast: 1 });
    expect(v.judge).toBe(`onnxruntime-web ${ORT_WEB_VERSION}, ort.webgpu.min.mjs`);
    expect(v.error).toBeLessThanOrEqual(1e-6);
  }, 300_000);

  it("an int64 mask with its range declared: the Cast read through a table, nothing on CPU, the same numbers", async () => {
    const original = join(work, "mask-ranged.onnx");
    saveModel(maskModel, original);
    const out = join(work, "mask-ranged.webgpu.onnx");
    const r = runCli([
      "lower",
      original,
      "--target",
      "webgpu",
      "--input-range",
      "attention_mask=0:1",
      "-o",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const ranges = new Map([["attention_mask", { lo: 0, hi: 1 }]]);
    const v = await judgeWebgpu(
      judge,
      { path: original, model: maskModel },
      out,
      new Map(),
      7,
      ranges,
    );
    expect(v.before.cpuOps).toEqual({ Cast: 1 });
    expect(v.after.cpuNodes, JSON.stringify(v.after.cpuOps)).toBe(0);
    expect(v.error).toBeLessThanOrEqual(1e-6);
  }, 300_000);
});
