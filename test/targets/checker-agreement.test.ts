// Our partitions (check --target coreml / nnapi) against onnxruntime's own usability checker's
// on the same file as it is (scripts/targets/ort-usability.ts: onnxruntime 1.30's Python wheel,
// through the corpus venv; skipped with the reason where absent): the partition count, their
// sizes, the nodes in them and the nodes in all agree, on lowered models with every dim fixed
// (the test Llamas, with and without a KV cache; an audio stem of 1D Convs and a GELU by Erf; a
// BERT-like embedding of run-time ids) and on a lowered ViT block whose batch stays symbolic,
// where both count the nodes reading a value of dynamic shape as unsupported. The lowered
// Llamas, the stem and the embedding also give onnxruntime's numbers.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lower, randomInputs, type LowerRequest } from "../../src/app/index.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadModel, saveModel } from "../../src/io/files.js";
import type { Model } from "../../src/ir/types.js";
import { classifyModel } from "../../src/targets/classify.js";
import { loadProfile } from "../../src/targets/load.js";
import { parseModelText } from "../../src/text/parse.js";
import { runOrt } from "../helpers/ort.js";
import { checkerSetUp, estimateOf, usability } from "../helpers/usability.js";

const { python, absent, work } = checkerSetUp("checker-agreement");
const data = join(import.meta.dirname, "..", "data");

const weights = (n: number, k = 29) =>
  Array.from({ length: n }, (_, i) => (((i * k) % 23) - 11) / 16).join(", ");

// An audio encoder's stem: two 1D Convs (NNAPI takes only 2D), each followed by a GELU by Erf
// (NNAPI has no Erf).
const STEM = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (float[1,8,32] x) => (float[1,8,16] y)
  <float[8,8,3] w1 = {${weights(192)}}, float[8] b1 = {0, 0.1, 0, -0.1, 0.2, 0, 0, 0.3},
   float[8,8,3] w2 = {${weights(192, 31)}}, float r2 = {0.70710678}, float one = {1}, float half = {0.5}>
{
  c1 = Conv <kernel_shape = [3], pads = [1, 1]> (x, w1, b1)
  s1 = Mul (c1, r2)
  e1 = Erf (s1)
  a1 = Add (e1, one)
  m1 = Mul (c1, a1)
  h = Mul (m1, half)
  c2 = Conv <kernel_shape = [3], pads = [1, 1], strides = [2]> (h, w2)
  s2 = Mul (c2, r2)
  e2 = Erf (s2)
  a2 = Add (e2, one)
  m2 = Mul (c2, a2)
  y = Mul (m2, half)
}`);

// A BERT-like embedding: word and position tables read by run-time int64 ids, then a norm.
const EMBED = parseModelText(`<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,6] ids, int64[1,6] pos) => (float[1,6,4] y)
  <float[11,4] words = {${weights(44)}}, float[6,4] places = {${weights(24, 7)}},
   float[4] s = {1, 1, 1, 1}, float[4] b = {0, 0, 0, 0}>
{
  w = Gather (words, ids)
  p = Gather (places, pos)
  e = Add (w, p)
  y = LayerNormalization <axis = -1> (e, s, b)
}`);

interface Case {
  name: string;
  model: Model;
  req: LowerRequest;
  /** Compared with onnxruntime on the original. */
  numbers: boolean;
}

const llama = (dir: string) => loadModel(join(data, "llm", dir, "model.onnx"));
const dims = (o: Record<string, number>) => new Map(Object.entries(o));
const SEQ = { batch: 1, sequence: 8 };
const KV = { batch: 1, sequence: 8, past_sequence: 16, total_sequence: 24 };

describe.skipIf(!python)(`our partitions against onnxruntime's usability checker${absent}`, () => {
  it("the same partitions, nodes in them and nodes in all, on lowered models", async () => {
    const coreml = loadProfile("coreml");
    const nnapi = loadProfile("nnapi");
    const vit = loadModel(join(data, "targets", "vit_tiny_dynamo.onnx"));
    const cases: Case[] = [
      { name: "stem.nnapi", model: STEM, req: { profile: nnapi }, numbers: true },
      { name: "stem.coreml", model: STEM, req: { profile: coreml }, numbers: false },
      { name: "embed.nnapi", model: EMBED, req: { profile: nnapi }, numbers: true },
      {
        name: "llama.nnapi",
        model: llama("llama_tiny_dynamo"),
        req: { profile: nnapi, dims: dims(SEQ) },
        numbers: true,
      },
      {
        name: "llama-kv.coreml",
        model: llama("llama_tiny_kv_dynamo_op23"),
        req: { profile: coreml, dims: dims(KV) },
        numbers: true,
      },
      {
        name: "llama-kv.nnapi",
        model: llama("llama_tiny_kv_dynamo_op23"),
        req: { profile: nnapi, dims: dims(KV) },
        numbers: false,
      },
      // the batch left symbolic: nodes reading a value of dynamic shape are refused by both
      { name: "vit-dynamic.nnapi", model: vit, req: { profile: nnapi }, numbers: false },
    ];
    const done = cases.map((c) => {
      const r = lower(c.model, c.req);
      if (!r.ok) throw new Error(`${c.name}: lower failed`);
      const file = join(work, `${c.name}.onnx`);
      saveModel(r.model, file);
      return { ...c, file, lowered: r.model };
    });
    const verdicts = usability(
      python!,
      done.map((d) => d.file),
    );
    const rows = done.map((d, i) => {
      const ep = d.req.profile.name as "coreml" | "nnapi";
      const theirs = estimateOf(verdicts[i]?.raw?.[ep]);
      const ours = classifyModel(d.lowered, d.req.profile).partitions;
      return {
        name: d.name,
        ours: [ours.count, ours.supported, ours.nodes, ours.groups.map((g) => g.nodes).sort()],
        theirs: theirs && [
          theirs.partitions,
          theirs.supported,
          theirs.nodes,
          [...theirs.sizes].sort(),
        ],
      };
    });
    for (const r of rows) expect(r.ours, r.name).toEqual(r.theirs);
    // what the cases hold: the stem's Convs taken (each between an Unsqueeze and a Squeeze),
    // split by its two Erfs alone; the embedding and
    // the KV Llama for CoreML in one partition; the symbolic batch refused somewhere
    const byName = new Map(rows.map((r) => [r.name, r.ours] as const));
    expect(byName.get("stem.nnapi")!.slice(0, 3)).toEqual([3, 14, 16]);
    expect(byName.get("embed.nnapi")![0]).toBe(1);
    expect(byName.get("llama-kv.coreml")![0]).toBe(1);
    const vitRow = byName.get("vit-dynamic.nnapi")!;
    expect(vitRow[1]).toBeLessThan(vitRow[2] as number);
    for (const d of done.filter((x) => x.numbers)) {
      const inputs = randomInputs(d.model, 3, d.req.dims ?? new Map()) as Record<string, RTensor>;
      const [a, b] = [await runOrt(d.model, inputs), await runOrt(d.lowered, inputs)];
      for (const k of Object.keys(a))
        expect(
          compareTensors(b[k]!, a[k]!, { rtol: 0, atol: 0, normRtol: 1e-4 }),
          `${d.name} ${k}`,
        ).toBeUndefined();
    }
  }, 300_000);
});
