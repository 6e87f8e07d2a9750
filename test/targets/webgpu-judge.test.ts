// A lowered model judged by its backend: onnxruntime-web's WebGPU execution provider (the release
// package.json pins) in headless Chromium on SwiftShader (scripts/targets/webgpu-judge.ts). On a
// ViT block exported by torch's dynamo exporter with a dynamic batch
// (test/data/targets/vit_tiny_dynamo.onnx; bench/interp-export.py makes it), onnxruntime places
// the batch's shape arithmetic on CPU as exported; after `lower --target webgpu` with the batch
// fixed, no node is placed on CPU and the outputs on WebGPU are onnxruntime-node's on the
// original. Skipped, with the reason, only where Chromium has no WebGPU.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  judgeWebgpu,
  parsePlacement,
  WebgpuJudge,
  webgpuUnavailable,
} from "../../scripts/targets/webgpu-judge.js";
import { runCli } from "../helpers/cli.js";

const root = join(import.meta.dirname, "..", "..");
const model = join(root, "test", "data", "targets", "vit_tiny_dynamo.onnx");
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
    });
    expect(
      parsePlacement([" All nodes placed on [JsExecutionProvider]. Number of nodes: 7"]),
    ).toEqual({ byProvider: { JsExecutionProvider: 7 }, cpuNodes: 0, cpuOps: {} });
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
    expect(v.after.byProvider.JsExecutionProvider).toBeGreaterThan(0);
    expect(v.error).toBeLessThanOrEqual(1e-4);
  }, 300_000);
});
