// Lowered models judged by the backends' own tool: onnxruntime's usability checker
// (scripts/targets/ort-usability.ts) must find one CoreML ML Program partition covering every
// node, and one NNAPI partition covering every node (with the Erf approximation), on small models
// holding the ops the legalizations rewrite (Gather, Pad, Neg, Expand; Erf, LayerNormalization,
// Reciprocal); and the lowered models give onnxruntime's numbers. The same for the deployed
// corpus's quantized CNNs (QDQ, A16W8 at opset 21 and in com.microsoft ops, QOperator), whose
// lowered forms give onnxruntime's bytes.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lower, type LowerRequest } from "../../src/app/transform.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { loadModel, saveModel } from "../../src/io/files.js";
import { randomInputs } from "../../src/app/index.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { loadProfile } from "../../src/targets/load.js";
import { rowFor } from "../../src/targets/profile.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";
import { checkerSetUp, estimateOf, usability } from "../helpers/usability.js";

const { python, absent, work } = checkerSetUp("ort-usability");

// A vision-transformer block: LayerNormalization, a GELU by Erf, a 6-dim window Transpose.
const ENCODER = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[1,14,14,8] x) => (float[1,196,8] y)
  <float[8] s = {1, 1.5, 0.5, 2, 1, 1, 0.25, 1}, float[8] b = {0, 0.1, 0, -0.1, 0, 0, 0.2, 0},
   int64[6] win = {1, 2, 7, 2, 7, 8}, int64[3] flat = {1, 196, 8}, float half = {0.5}, float one = {1},
   float r2 = {0.70710678}>
{
  n = LayerNormalization <axis = -1> (x, s, b)
  w = Reshape (n, win)
  t = Transpose <perm = [0, 1, 3, 2, 4, 5]> (w)
  f = Reshape (t, flat)
  e = Erf (f2)
  f2 = Mul (f, r2)
  e1 = Add (e, one)
  g1 = Mul (f, e1)
  y = Mul (g1, half)
}`);

// A decoder's gathers and pads: an embedding by run-time ids, a constant Gather, a rotary half
// negated, an Expand of a key, a Pad of the sequence.
const DECODER = parseModelText(
  `<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,6] ids) => (float[1,2,8,8] y, float[1,8,8] z)
  <float[20,8] emb = {${Array.from({ length: 160 }, (_, i) => ((i * 37) % 17) / 8 - 1).join(", ")}},
   int64[4] pads = {0, 1, 0, 0, 1, 0}, int64[1] zero = {0},
   int64[4] shape = {1, 2, 8, 8}, int64[1] ax = {-1}, int64[1] four = {4}, int64[1] eight = {8}>
{
  e = Gather (emb, ids)
  p = Pad (e, pads)
  lo = Slice (p, zero, four, ax)
  hi = Slice (p, four, eight, ax)
  nh = Neg (hi)
  r = Concat <axis = -1> (nh, lo)
  z = Add (r, p)
  y = Expand (z, shape)
}`.replace("int64[4] pads", "int64[6] pads"),
);

async function sameNumbers(a: Model, b: Model) {
  const feeds =
    a === DECODER
      ? { ids: random(DataType.INT64, [1, 6], 1, 0, 19) }
      : { x: random(DataType.FLOAT, [1, 14, 14, 8], 2) };
  const [ra, rb] = [await runOrt(a, feeds), await runOrt(b, feeds)];
  for (const k of Object.keys(ra))
    expect(compareTensors(rb[k]!, ra[k]!, { rtol: 1e-5, atol: 1e-6 }), k).toBeUndefined();
}

function lowered(m: Model, name: string, req: LowerRequest): { file: string; model: Model } {
  const r = lower(m, req);
  expect(r.ok).toBe(true);
  if (!r.ok) throw new Error("lower failed");
  const file = join(work, `${name}.onnx`);
  saveModel(r.model, file);
  return { file, model: r.model };
}

describe.skipIf(!python)(`onnxruntime's usability checker on lowered models${absent}`, () => {
  it("one partition covering every node, for CoreML ML Program and NNAPI; same numbers", async () => {
    const cases = [
      {
        m: DECODER,
        name: "decoder.coreml",
        ep: "coreml" as const,
        req: { profile: loadProfile("coreml") },
      },
      {
        m: ENCODER,
        name: "encoder.coreml",
        ep: "coreml" as const,
        req: { profile: loadProfile("coreml") },
      },
      {
        m: ENCODER,
        name: "encoder.nnapi",
        ep: "nnapi" as const,
        req: { profile: loadProfile("nnapi"), approximate: ["erf" as const] },
      },
    ];
    const done = cases.map((c) => ({ ...c, ...lowered(c.m, c.name, c.req) }));
    // the models as written: more than one partition, or ops left (what the test would miss)
    const before = join(work, "decoder.onnx");
    saveModel(DECODER, before);
    const verdicts = usability(python!, [before, ...done.map((d) => d.file)]);
    expect(verdicts[0]!.error).toBeUndefined();
    expect(estimateOf(verdicts[0]!.coreml)!.unsupportedOps.sort()).toEqual([
      "Expand",
      "Gather",
      "Neg",
      "Pad",
    ]);
    done.forEach((d, i) => {
      const e = estimateOf(verdicts[i + 1]![d.ep])!;
      expect({ name: d.name, partitions: e.partitions, left: e.nodes - e.supported }).toEqual({
        name: d.name,
        partitions: 1,
        left: 0,
      });
    });
    for (const d of done) await sameNumbers(d.m, d.model);
  }, 120_000);

  it("the deployed quantized CNNs: one partition covering every node; onnxruntime's bytes", async () => {
    const root = join(import.meta.dirname, "..", "data", "deployed");
    const cases = [
      ["cnn_qdq_per_channel", "coreml"],
      ["cnn_a16w8_op21", "nnapi"],
      ["cnn_a16w8_contrib", "nnapi"],
      ["cnn_qop_per_channel", "coreml"],
      ["cnn_qop_per_tensor", "nnapi"],
    ] as const;
    const dims = new Map([["batch", 1]]);
    const done = cases.map(([name, ep]) => {
      const m = loadModel(join(root, name, "model.onnx"));
      return { m, name, ep, ...lowered(m, `${name}.${ep}`, { profile: loadProfile(ep), dims }) };
    });
    const verdicts = usability(
      python!,
      done.map((d) => d.file),
    );
    done.forEach((d, i) => {
      const e = estimateOf(verdicts[i]![d.ep])!;
      expect({ name: d.name, partitions: e.partitions, left: e.nodes - e.supported }).toEqual({
        name: d.name,
        partitions: 1,
        left: 0,
      });
      // No com.microsoft op left that the target lacks (NNAPI has QLinearAdd, QLinearSigmoid).
      const lacked = d.model.graph.nodes.filter(
        (n) => n.domain === "com.microsoft" && !rowFor(loadProfile(d.ep), n.domain, n.opType),
      );
      expect(
        lacked.map((n) => n.opType),
        d.name,
      ).toEqual([]);
    });
    for (const d of done) {
      // onnxruntime's QDQ fusions off: the model as written, integer rounding and all.
      const feeds = randomInputs(d.m, 3, dims) as Record<string, RTensor>;
      const [a, b] = [
        await runOrt(d.m, feeds, { optimized: false }),
        await runOrt(d.model, feeds, { optimized: false }),
      ];
      for (const k of Object.keys(a))
        expect(
          compareTensors(b[k]!, a[k]!, { rtol: 0, atol: 0 }),
          `${d.name} ${k}`,
        ).toBeUndefined();
    }
  }, 180_000);
});
