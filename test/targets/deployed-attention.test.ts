// The deployed corpus's fused transformers lowered for CoreML and NNAPI, judged by onnxruntime's
// own usability checker with every symbolic dim fixed (a batch dim 1, the others 8): the
// onnxruntime-fused BERTs (Attention, MultiHeadAttention, EmbedLayerNormalization,
// SkipLayerNormalization, BiasGelu, FastGelu; float32 and float16) end in one CoreML partition
// covering every node, and the GroupQueryAttention prompt and decode models (the decode step with
// dims 1 new, 7 cached, 8 in all, its rows of 5 and 8 tokens, so each row's new key lands in its
// own cache slot) in one CoreML partition covering every node and one NNAPI partition (their own
// mask's ReduceSum, on the graph input, left before it); the dynamically quantized BERTs (DynamicQuantizeMatMul, MatMulIntegerToFloat, and
// DynamicQuantizeLinear with MatMulInteger) in one CoreML partition covering every node; CLIP's
// text encoder too, its QuickGelu kept (CoreML has it) and the shapes past it in the value_info
// lower writes (ONNX's inference, which the checker uses, stops at onnxruntime's ops). No Loop: the Range of the attention body folds once the dims are fixed. The lowered models
// give onnxruntime's numbers on the original (norm-wise). And the dynamically quantized LSTM
// (DynamicQuantizeLSTM) in one partition covering every node, CoreML and NNAPI.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lower, randomInputs } from "../../src/app/index.js";
import { run } from "../../src/interp/executor.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { saveModel } from "../../src/io/files.js";
import { DataType } from "../../src/ir/types.js";
import { modelOf } from "../../src/passes/pass.js";
import { fixDims } from "../../src/passes/fix-dims.js";
import { transform } from "../../src/app/transform.js";
import { loadProfile } from "../../src/targets/load.js";
import { deployedNames, loadDeployed } from "../../scripts/corpus/deployed-judge.js";
import { DEPLOYED_ORT_THREADS } from "../../scripts/corpus/deployed-transforms.js";
import { runOrt } from "../helpers/ort.js";
import { checkerSetUp, estimateOf, usability } from "../helpers/usability.js";

const { python, absent, work } = checkerSetUp("deployed-attention");

/** The decode step of gqa_decode: one new token, 7 cached, rows of 5 and 8 tokens. */
const DECODE = { sequence: 1, past: 7, total_sequence: 8 };

/** Model, target, what the checker must find after lowering, and dims other than 1/8. */
const CASES: [
  string,
  "coreml" | "nnapi",
  { partitions: number; left: number },
  Record<string, number>?,
][] = [
  ["bert_optimized", "coreml", { partitions: 1, left: 0 }],
  ["bert_optimized_default", "coreml", { partitions: 1, left: 0 }],
  ["bert_optimized_mha", "coreml", { partitions: 1, left: 0 }],
  ["bert_tanh_optimized", "coreml", { partitions: 1, left: 0 }],
  ["bert_optimized_fp16", "coreml", { partitions: 1, left: 0 }],
  ["gqa_prompt", "coreml", { partitions: 1, left: 0 }],
  ["gqa_prompt", "nnapi", { partitions: 1, left: 1 }],
  ["gqa_decode", "coreml", { partitions: 1, left: 0 }, DECODE],
  ["gqa_decode", "nnapi", { partitions: 1, left: 1 }, DECODE],
  ["bert_dynamic_ort_extended", "coreml", { partitions: 1, left: 0 }],
  ["bert_dynamic_per_channel_ort_extended", "coreml", { partitions: 1, left: 0 }],
  ["bert_dynamic_per_channel", "coreml", { partitions: 1, left: 0 }],
  ["bert_dynamic_qop", "coreml", { partitions: 1, left: 0 }],
  // QuickGelu stays (CoreML has it): the value_info lower writes carries the shapes past it
  ["clip_text_optimized", "coreml", { partitions: 1, left: 0 }],
  // DynamicQuantizeLSTM's body, its Scans unrolled, in ops CoreML has (no ReduceMin, Min, Equal)
  ["lstm_dynamic", "coreml", { partitions: 1, left: 0 }],
  // and NNAPI: its Rounds of clamped values as Add and Sub of 1.5 · 2^23, R's column sums folded
  ["lstm_dynamic", "nnapi", { partitions: 1, left: 0 }],
];

function normwise(a: Record<string, RTensor>, b: Record<string, RTensor>): number {
  let worst = 0;
  for (const k of Object.keys(a)) {
    const [x, y] = [toFloat64(a[k]!), toFloat64(b[k]!)];
    let [num, den] = [0, 0];
    for (let i = 0; i < x.length; i++) [num, den] = [num + (x[i]! - y[i]!) ** 2, den + x[i]! ** 2];
    worst = Math.max(worst, Math.sqrt(num / (den || 1)));
  }
  return worst;
}

/**
 * gqa_decode's inputs for rows of the given lengths (attention_mask ones): each row's new token
 * goes to its own cache slot (length - 1); the slots at and past it hold inf and NaN, which no
 * row reads.
 */
function perRowCache(inputs: Record<string, RTensor>, lengths: number[]): void {
  const [B, T] = inputs.attention_mask!.shape as [number, number];
  const mask = new BigInt64Array(B * T);
  lengths.forEach((n, b) => mask.fill(1n, b * T, b * T + n));
  inputs.attention_mask = { dtype: DataType.INT64, shape: [B, T], data: mask };
  for (const name of ["past_key", "past_value"]) {
    const [, heads, P, H] = inputs[name]!.shape as [number, number, number, number];
    const d = inputs[name]!.data as Float32Array;
    for (let i = 0; i < d.length; i++)
      if (Math.floor(i / H) % P >= lengths[Math.floor(i / (heads * P * H))]! - 1)
        d[i] = [NaN, Infinity, -Infinity][i % 3]!;
  }
}

const present = new Set(deployedNames());

describe.skipIf(!python || !CASES.every(([n]) => present.has(n)))(
  `fused transformers of the deployed corpus, lowered, by onnxruntime's checker${absent}`,
  () => {
    it("one partition, every node covered (NNAPI: the mask's ReduceSum before it); onnxruntime's numbers", async () => {
      const files: string[] = [];
      const errors: Record<string, number> = {};
      for (const [name, target, , fixed] of CASES) {
        const m = loadDeployed(name).model;
        const dims = new Map<string, number>();
        for (const v of m.graph.inputs)
          if (v.type?.kind === "tensor")
            for (const d of v.type.shape ?? [])
              if (typeof d === "string") dims.set(d, fixed?.[d] ?? (/batch/i.test(d) ? 1 : 8));
        const r = lower(m, { profile: loadProfile(target), dims });
        expect(r.ok, name).toBe(true);
        if (!r.ok) continue;
        const ops = r.model.graph.nodes.map((n) => n.opType);
        expect(ops, name).not.toContain("Loop");
        if (name !== "clip_text_optimized")
          expect(r.model.graph.nodes.filter((n) => n.domain === "com.microsoft")).toEqual([]);
        const file = join(work, `${name}.${target}.onnx`);
        saveModel(r.model, file);
        files.push(file);
        const inputs = randomInputs(m, 3, dims) as Record<string, RTensor>;
        if (fixed === DECODE) perRowCache(inputs, [5, 8]);
        // a thread per row: onnxruntime's DynamicQuantizeLSTM quantizes the rows a thread takes
        // with one scale (docs/semantics.md)
        const threads = DEPLOYED_ORT_THREADS;
        const want = await runOrt(m, inputs, { threads });
        errors[`${name}.${target}`] = normwise(want, await runOrt(r.model, inputs, { threads }));
        // and in the interpreter, where the cache positions are per row (and lstm_dynamic's
        // quantized rows, a thread per row as well)
        if (fixed === DECODE || name === "lstm_dynamic")
          errors[`${name}.${target} interpreter`] = normwise(want, run(r.model, inputs));
        // the exported model with its dims fixed, as the checker judged it before
        if (target === "coreml") {
          const fixed = join(work, `${name}.fixed.onnx`);
          saveModel(modelOf(transform(m, fixDims(dims))), fixed);
          files.push(fixed);
        }
      }
      const verdicts = usability(python!, files);
      let k = 0;
      for (const [name, target, want] of CASES) {
        const e = estimateOf(verdicts[k++]![target])!;
        expect({ name, target, partitions: e.partitions, left: e.nodes - e.supported }).toEqual({
          name,
          target,
          ...want,
        });
        if (target === "coreml") {
          // as exported: ops left (com.microsoft ones, DynamicQuantizeLinear, MatMulInteger);
          // gqa_decode's dims fixed, onnxruntime's own basic optimization fails to load it
          const v = verdicts[k++]!.coreml;
          const before = estimateOf(v);
          if (before) expect(before.supported, name).toBeLessThan(before.nodes);
          else expect(JSON.stringify(v), name).toMatch(/GroupQueryAttention/);
        }
      }
      for (const [key, err] of Object.entries(errors))
        expect(err, key).toBeLessThan(key.includes("fp16") ? 2e-3 : 1e-5);
    }, 600_000);
  },
);
