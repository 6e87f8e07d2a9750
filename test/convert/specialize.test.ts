// Local functions whose body needs the types of its calls (src/convert/specialize.ts over
// src/inline/specialize.ts): where the calls of a function differ, the conversion is taken on
// copies of it per call signature — element types first, then ranks — and each copy converts;
// both signatures run on the interpreter and onnxruntime-node with the original's numbers.
// Where the calls agree nothing is copied; where copying cannot help, or would pass the bound,
// the refusal is the one of the model as it is.

import { describe, expect, it } from "vitest";
import { convertModel } from "../../src/app/transform.js";
import { specializeFunctions } from "../../src/inline/specialize.js";
import { functionKey } from "../../src/ir/functions.js";
import { SchemaRegistry } from "../../src/schema/registry.js";
import { parseModelText } from "../../src/text/index.js";
import { convertAndCompare, nodeLines } from "../helpers/convert.js";

/** As torch's legacy exporter writes a module: CastLike to the input's type, then HardSwish. */
const block = `
  < domain: "local", opset_import: ["" : 15] >
  Block (a) => (b) {
    two = Constant <value: tensor = int64[1] {2}> ()
    t = CastLike (two, a)
    m = Mul (a, t)
    s = Softmax <axis: int = 1> (m)
    h = HardSwish (s)
    b = Add (h, a)
  }`;

const model = (x: string, d: string) => `
  < ir_version: 8, opset_import: ["" : 15, "local" : 1] >
  g (${x} x, ${d} d) => (${x} y, ${d} z) {
    [cx] y = local.Block (x)
    [cd] z = local.Block (d)
  }
  ${block}`;

const byElem = model("float[2,3,4]", "double[2,3,4]");
const byRank = model("float[2,3,4]", "float[2,3,4,5]");
const fnNames = (text: string) => [...text.matchAll(/^(\w+) \(a\) => \(b\)/gm)].map((m) => m[1]);
const BLOCK = functionKey("local", "Block");
const tol = { rtol: 1e-5, atol: 1e-6 };

describe("convert specializes local functions per call signature", () => {
  for (const target of [13, 11])
    it(`calls on float and double: one copy each, to ${target}`, async () => {
      // onnxruntime has no double HardSwish: the model before runs in the interpreter only.
      const k = { lower: true, text: byElem, target, tol, noOrtBefore: true };
      const text = await convertAndCompare(k);
      expect(nodeLines(text)).toEqual(["[cx] y = local.Block (x)", "[cd] z = local.Block__2 (d)"]);
      expect(fnNames(text)).toEqual(["Block", "Block__2"]);
      expect(text).not.toMatch(/= (CastLike|HardSwish) /);
      expect(text).toContain("Cast <to: int = 1>");
      expect(text).toContain("Cast <to: int = 11>");
    });

  it("calls on rank 3 and rank 4: Softmax-13's axis goes to 11 in a copy per rank", async () => {
    const text = await convertAndCompare({ lower: true, text: byRank, target: 11, tol });
    expect(nodeLines(text)).toEqual(["[cx] y = local.Block (x)", "[cd] z = local.Block__2 (d)"]);
    expect(text).toContain("Transpose <perm: ints = [0, 2, 1]>");
    expect(text).toContain("Transpose <perm: ints = [0, 3, 2, 1]>");
    const r = convertModel(parseModelText(byRank), 11);
    expect(r.plan.specialized).toEqual({ copies: ["'local.Block__2'"], by: "rank" });
    expect(r.plan.blocked).toEqual([]);
  });

  it("the same calls going to 13 need no rank: the function keeps its identity", async () => {
    const text = await convertAndCompare({ lower: true, text: byRank, target: 13, tol });
    expect(fnNames(text)).toEqual(["Block"]);
    expect(convertModel(parseModelText(byRank), 13).plan.specialized).toBeUndefined();
  });

  it("signatures as coarse as asked: element types alone do not tell the rank-3 and rank-4 calls apart", () => {
    const registry = SchemaRegistry.default();
    const keys = new Set([BLOCK]);
    const m = parseModelText(byRank);
    const elem = specializeFunctions(m, keys, registry, { level: "elem" });
    expect(elem.ok && elem.copies).toEqual([]);
    const rank = specializeFunctions(m, keys, registry, { level: "rank" });
    expect(rank.ok && rank.copies).toEqual(["'local.Block__2'"]);
  });

  it("where the calls agree and the rank is still unknown, the refusal is the model's own", () => {
    // Reshaped by a shape of unknown length: the rank is known nowhere, at either call.
    const text = `
      < ir_version: 8, opset_import: ["" : 15, "local" : 1] >
      g (float[24] x, int64[?] s) => (float y, float z) {
        r = Reshape (x, s)
        [cx] y = local.Block (r)
        [cd] z = local.Block (r)
      }
      ${block}`;
    const r = convertModel(parseModelText(text), 11);
    expect(r.model).toBeUndefined();
    expect(r.plan.specialized).toBeUndefined();
    const softmax = r.plan.blocked.find((b) => b.op === "Softmax")!;
    expect(softmax.function).toBe(BLOCK);
    expect(softmax.message).toMatch(/^axis 1 is not known to be the last one/);
  });

  it("copies are bounded like any expansion: over it, the refusal as it was", () => {
    const r = convertModel(parseModelText(byRank), 11, { maxNodes: 8 });
    expect(r.model).toBeUndefined();
    expect(r.plan.blocked.some((b) => b.op === "Softmax")).toBe(true);
  });
});
