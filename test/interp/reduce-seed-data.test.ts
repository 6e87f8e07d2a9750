// The generated seed backend tests in test/data (scripts/gen-seed-tests.ts): they run through the
// executor's backend-test runner, through the kernels directly with a 2-ulp check, the ReduceLogSum
// ones also through onnxruntime-node (a check of the generator's expected values), and the
// committed files must be what the generator writes now.

import * as ort from "onnxruntime-node";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bfloat16BitsToNumber, float16BitsToNumber } from "../../src/ir/dtype.js";
import { loadModel } from "../../src/io/files.js";
import { DataType } from "../../src/ir/types.js";
import { runBackendTest } from "../../src/interp/backend-test.js";
import { decodeTensorProto } from "../../src/interp/value-proto.js";
import { logCumSumExpKernels } from "../../src/interp/kernels/logcumsumexp.js";
import { reduceKernels } from "../../src/interp/kernels/reduce.js";
import type { KernelContext, RTensor } from "../../src/interp/types.js";

const dataDir = new URL("../data/", import.meta.url).pathname;
const dirs = readdirSync(dataDir)
  .filter((d) => d.startsWith("test_reduce_log_sum") || d.startsWith("test_logcumsumexp"))
  .sort();

function load(dir: string) {
  const m = loadModel(join(dataDir, dir, "model.onnx"));
  const set = join(dataDir, dir, "test_data_set_0");
  const inputs = readdirSync(set)
    .filter((f) => f.startsWith("input_"))
    .sort()
    .map((f) => decodeTensorProto(readFileSync(join(set, f))).tensor);
  const expected = decodeTensorProto(readFileSync(join(set, "output_0.pb"))).tensor;
  return { m, inputs, expected };
}

function numbers(t: RTensor): number[] {
  if (t.dtype === DataType.FLOAT16) return Array.from(t.data as Uint16Array, float16BitsToNumber);
  if (t.dtype === DataType.BFLOAT16) return Array.from(t.data as Uint16Array, bfloat16BitsToNumber);
  return Array.from(t.data as Float32Array);
}

/** Ordinal of a value among the type's values (float16/bfloat16 from their bits). */
function ordinal(t: RTensor, i: number): bigint {
  let bits: bigint;
  let sign: bigint;
  if (t.dtype === DataType.FLOAT16 || t.dtype === DataType.BFLOAT16) {
    bits = BigInt((t.data as Uint16Array)[i]!);
    sign = 1n << 15n;
  } else if (t.dtype === DataType.FLOAT) {
    bits = BigInt(new Uint32Array(new Float32Array([(t.data as Float32Array)[i]!]).buffer)[0]!);
    sign = 1n << 31n;
  } else {
    bits = new BigUint64Array(new Float64Array([(t.data as Float64Array)[i]!]).buffer)[0]!;
    sign = 1n << 63n;
  }
  return bits & sign ? -(bits & (sign - 1n)) : bits;
}

describe("seed backend tests (test/data)", () => {
  it("cover every seed example", () => {
    expect(dirs.filter((d) => d.startsWith("test_reduce_log_sum"))).toHaveLength(16);
    expect(dirs.filter((d) => d.startsWith("test_logcumsumexp"))).toHaveLength(11);
  });

  for (const dir of dirs)
    it(dir, async () => {
      // 1. the backend-test runner (executor)
      const r = runBackendTest(join(dataDir, dir));
      expect(r.reason ?? "ok").toBe("ok");

      // 2. the kernel directly, within 2 ulp of the expected values
      const { m, inputs, expected } = load(dir);
      const n = m.graph.nodes[0]!;
      const ctx: KernelContext = {
        node: n,
        opset: m.opsetImports.find((o) => o.domain === "")!.version,
        label: `node (${n.opType})`,
        maxElements: 2 ** 31 - 1,
        runSubgraph: () => [],
      };
      const kernel = { ...reduceKernels, ...logCumSumExpKernels }[n.opType]!;
      const y = kernel(ctx, inputs)[0] as RTensor;
      expect(y.dtype).toBe(expected.dtype);
      expect(y.shape).toEqual(expected.shape);
      const got = numbers(y);
      const want = numbers(expected);
      for (let i = 0; i < got.length; i++) {
        if (Number.isNaN(want[i]!) || !Number.isFinite(want[i]!))
          expect(got[i], `element ${i}`).toBe(want[i]);
        else {
          const d = ordinal(y, i) - ordinal(expected, i);
          expect(d < 0n ? -d : d, `element ${i}: ${got[i]} vs ${want[i]}`).toBeLessThanOrEqual(2n);
        }
      }

      // 3. ORT agrees with the generator's expected values (it has no LogCumSumExp-29)
      if (n.opType === "ReduceLogSum") {
        const s = await ort.InferenceSession.create(
          readFileSync(join(dataDir, dir, "model.onnx")),
          {
            logSeverityLevel: 3, // opset-1 models make ORT warn that its transpose optimizer skips them
          },
        );
        const feeds: Record<string, ort.Tensor> = {};
        m.graph.inputs.forEach((vi, i) => {
          const t = inputs[i]!;
          feeds[vi.name] = new ort.Tensor(
            t.dtype === DataType.INT64 ? "int64" : "float32",
            t.data as Float32Array,
            t.shape,
          );
        });
        const out = (await s.run(feeds))[m.graph.outputs[0]!.name]!;
        expect([...out.dims]).toEqual(expected.shape);
        const o = out.data as Float32Array;
        for (let i = 0; i < o.length; i++)
          expect(Math.abs(o[i]! - want[i]!)).toBeLessThanOrEqual(1e-6 * Math.abs(want[i]!));
      }
    });

  it("are what scripts/gen-seed-tests.ts generates", () => {
    const tmp = mkdtempSync(join(tmpdir(), "seed-tests-"));
    try {
      const tsx = new URL("../../node_modules/tsx/dist/cli.mjs", import.meta.url).pathname;
      execFileSync(
        process.execPath,
        [tsx, new URL("../../scripts/gen-seed-tests.ts", import.meta.url).pathname, tmp],
        { stdio: "pipe" },
      );
      for (const dir of readdirSync(tmp)) {
        const files = [
          "model.onnx",
          ...readdirSync(join(tmp, dir, "test_data_set_0")).map((f) => `test_data_set_0/${f}`),
        ];
        for (const f of files)
          expect(
            Buffer.compare(readFileSync(join(tmp, dir, f)), readFileSync(join(dataDir, dir, f))),
            `${dir}/${f}`,
          ).toBe(0);
      }
      expect(readdirSync(tmp).sort()).toEqual(dirs);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
