// onnxruntime's operators as schema data: the com.microsoft ops its tools write, and its own
// registrations in the ONNX domain, resolved where ONNX has none and named as onnxruntime's.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkModel } from "../../src/check/index.js";
import { loadModel } from "../../src/io/files.js";
import { SchemaRegistry } from "../../src/schema/index.js";

const reg = SchemaRegistry.default();
const DEPLOYED = new URL("../data/deployed/", import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(`${DEPLOYED}manifest.json`, "utf8")) as {
  models: Record<string, { ops: Record<string, number> }>;
  ops: Record<string, string[]>;
};

describe("com.microsoft schemas", () => {
  it("every com.microsoft op of the deployed corpus is known, with the release its facts come from", () => {
    const ops = Object.keys(manifest.ops).filter((o) => o.startsWith("com.microsoft."));
    expect(ops.length).toBeGreaterThanOrEqual(28);
    for (const o of ops) {
      const v = reg.tryResolve("com.microsoft", o.slice("com.microsoft.".length), 1);
      expect(v, o).toBeDefined();
      expect(v!.source).toMatch(/^onnxruntime \d+\.\d+\.\d+$/);
    }
  });

  it("documented defaults the facts lack come from the overlays", () => {
    const gqa = reg.resolve("com.microsoft", "GroupQueryAttention", 1);
    expect(gqa.attributes.find((a) => a.name === "do_rotary")?.default).toBe(0);
    expect(gqa.attributes.find((a) => a.name === "num_heads")?.required).toBe(true);
  });
});

describe("onnxruntime's registrations in the ONNX domain", () => {
  it("resolve only where ONNX has no version of the op", () => {
    const ln14 = reg.tryResolve("", "LayerNormalization", 14);
    expect(ln14?.registeredBy).toBe("onnxruntime");
    expect(ln14?.since).toBe(1);
    expect(reg.tryResolve("", "LayerNormalization", 17)?.registeredBy).toBeUndefined();
    expect(reg.tryResolveStandard("", "LayerNormalization", 14)).toBeUndefined();
    expect(reg.tryResolve("", "SimplifiedLayerNormalization", 21)?.registeredBy).toBe(
      "onnxruntime",
    );
    // Not ONNX operators: not listed, and the newest ai.onnx opset is unchanged.
    expect(reg.operators()).not.toContain("SimplifiedLayerNormalization");
    expect(reg.runtimeRegistrations()).toEqual([
      ["", "LayerNormalization"],
      ["", "SimplifiedLayerNormalization"],
    ]);
    expect(reg.versions("", "LayerNormalization").map((v) => v.since)).toEqual([17]);
  });

  it("check accepts them with a warning naming onnxruntime", () => {
    const r = checkModel(loadModel(`${DEPLOYED}bert_ort_extended/model.onnx`));
    expect(r.problems).toEqual([]);
    expect(r.warnings.map((w) => w.message)).toContainEqual(
      expect.stringContaining(
        "LayerNormalization at ai.onnx opset 14 is onnxruntime's own LayerNormalization-1",
      ),
    );
  });
});

describe("the deployed corpus checks clean", () => {
  const names = Object.keys(manifest.models).filter((n) => n !== "ort_mul_1");
  it.each(names)("%s", (name) => {
    const r = checkModel(loadModel(`${DEPLOYED}${name}/model.onnx`));
    expect(r.problems.map((p) => `${p.where}: ${p.message}`)).toEqual([]);
  });

  it("ort_mul_1 (IR 3, an initializer that is not a graph input) is reported, as ONNX's checker does", () => {
    const r = checkModel(loadModel(`${DEPLOYED}ort_mul_1/model.onnx`));
    expect(r.problems.map((p) => p.message)).toEqual([
      "initializer 'W' is not a graph input, which IR version 3 requires (IR 4 and later allow it)",
    ]);
  });
});
