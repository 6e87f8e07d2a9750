// Function ops the target opset lacks, lowered on the way (src/convert/lowering.ts,
// src/expand/lower-missing.ts, passed in by the app layer's convertModel): converted down, each model checks and gives the original's
// numbers in the interpreter and onnxruntime-node; only those ops are lowered; --no-lower
// (lower: false) refuses them with the advice it gave before; the expansion's bound applies.
// Inside model-local functions, a body that needs its call's types (CastLike's target) lowers
// where the function's calls agree on them, and where they do not, the function is copied per
// call signature (src/inline/specialize.ts).

import { describe, expect, it } from "vitest";
import { convertModel } from "../../src/app/transform.js";
import { modelOrigins, ORIGINS_KEY } from "../../src/inline/origin.js";
import { parseModelText } from "../../src/text/index.js";
import { convertAndCompare, nodeLines, randomFeeds } from "../helpers/convert.js";

const tol = { rtol: 1e-5, atol: 1e-5 };

const layerNorm = (axis: number) => `
  < ir_version: 8, opset_import: ["" : 17] >
  g (float[2,3,4] x, float[4] s, float[4] b) => (float[2,3,4] y, float[2,3,4] r) {
    [ln] y = LayerNormalization <axis: int = ${axis}, epsilon: float = 0.001> (x, s, b)
    r = Relu (y)
  }`;

const gelu = (approximate: string) => `
  < ir_version: 9, opset_import: ["" : 20] >
  g (float[3,5] x) => (float[3,5] y) {
    [gelu] y = Gelu <approximate: string = "${approximate}"> (x)
  }`;

const hardSwish = `
  < ir_version: 7, opset_import: ["" : 14] >
  g (float[2,6] x) => (float[2,6] y) {
    [hs] y = HardSwish (x)
  }`;

const compare = `
  < ir_version: 7, opset_import: ["" : 12] >
  g (float[4,3] a, float[4,3] b) => (bool[4,3] ge, bool[4,3] le) {
    [ge] ge = GreaterOrEqual (a, b)
    [le] le = LessOrEqual (a, b)
  }`;

describe("convert lowers function ops the target lacks", () => {
  for (const target of [13, 11])
    it(`LayerNormalization-17 to ${target}`, async () => {
      const text = await convertAndCompare({ lower: true, text: layerNorm(-1), target, tol });
      expect(nodeLines(text).join("\n")).not.toContain("LayerNormalization");
      // Relu exists at the target: it keeps its identity.
      expect(nodeLines(text).filter((l) => l.includes("Relu"))).toEqual(["r = Relu (y)"]);
    });

  it("LayerNormalization-17 over two axes to 13", async () => {
    const text = layerNorm(1).replace("float[4] s, float[4] b", "float[3,4] s, float[3,4] b");
    await convertAndCompare({ lower: true, text, target: 13, tol });
  });

  for (const target of [18, 17])
    for (const approximate of ["none", "tanh"])
      it(`Gelu-20 (${approximate}) to ${target}`, async () => {
        const text = await convertAndCompare({ lower: true, text: gelu(approximate), target, tol });
        expect(nodeLines(text).join("\n")).not.toContain("Gelu");
      });

  it("HardSwish-14 to 13", async () => {
    const text = await convertAndCompare({ lower: true, text: hardSwish, target: 13, tol });
    expect(nodeLines(text).join("\n")).not.toContain("HardSwish");
  });

  it("GreaterOrEqual-12 and LessOrEqual-12 to 11", async () => {
    const feeds = undefined;
    const text = await convertAndCompare({ lower: true, text: compare, target: 11, feeds });
    expect(nodeLines(text).join("\n")).not.toMatch(/GreaterOrEqual|LessOrEqual/);
  });

  it("says so per node in the plan, and records origins in the model's table", () => {
    const r = convertModel(parseModelText(layerNorm(-1)), 13);
    expect(r.plan.blocked).toEqual([]);
    expect(
      r.plan.lowered!.map((l) => `${l.where}: ${l.op} ${l.from} -> ${l.to}: ${l.message}`),
    ).toEqual([
      "graph > node 'ln' (LayerNormalization): LayerNormalization 17 -> 0: LayerNormalization does not exist at opset 13: lowered to its function body",
    ]);
    expect(r.model!.metadataProps!.some(([k]) => k === ORIGINS_KEY)).toBe(true);
    const table = Object.fromEntries(modelOrigins(r.model!));
    const names = r.model!.graph.nodes.map((n) => n.name);
    for (const [name, origin] of Object.entries(table)) {
      expect(names).toContain(name);
      expect(origin).toBe("ln|ai.onnx:LayerNormalization:17");
    }
    expect(Object.keys(table).length).toBe(r.model!.graph.nodes.length - 1);
    const quiet = convertModel(parseModelText(layerNorm(-1)), 13, { origin: false });
    expect(quiet.model!.metadataProps ?? []).toEqual([]);
  });

  it("lower: false refuses them with the advice it gave before", () => {
    const r = convertModel(parseModelText(hardSwish), 13, { lower: false });
    expect(r.model).toBeUndefined();
    expect(r.plan.lowered).toBeUndefined();
    expect(r.plan.blocked.map((b) => b.message)).toEqual([
      "HardSwish does not exist before opset 14; it is a function op: expand it first (`onnx-expand expand`), then convert",
    ]);
  });

  it("a model with nothing to lower converts as before (no plan entry, no origins)", () => {
    const text = `< ir_version: 8, opset_import: ["" : 17] >
      g (float[2] x) => (float[2] y) { y = Relu (x) }`;
    const r = convertModel(parseModelText(text), 13);
    expect(r.plan.lowered).toBeUndefined();
    expect(r.model!.metadataProps).toBeUndefined();
  });

  it("lowered but still blocked elsewhere: each function op names what blocks, not to expand", () => {
    // Reshape-14's allowzero = 1 with a shape computed at run time cannot go below 14.
    const text = `< ir_version: 8, opset_import: ["" : 17] >
      g (float[2,3,4] x, float[4] s, float[4] b) => (float[6,4] y) {
        [ln] n = LayerNormalization <axis: int = -1> (x, s, b)
        sh = Shape <start: int = 2> (x)
        m1 = Constant <value: tensor = int64[1] {-1}> ()
        shape = Concat <axis: int = 0> (m1, sh)
        [rs] y = Reshape <allowzero: int = 1> (n, shape)
      }`;
    const r = convertModel(parseModelText(text), 13);
    expect(r.model).toBeUndefined();
    const reshape = `graph > node 'rs' (Reshape): allowzero = 1 with shape 'shape' computed at run time`;
    expect(r.plan.blocked.map((b) => `${b.where}: ${b.message}`)).toEqual([
      expect.stringContaining(
        `graph > node 'ln' (LayerNormalization): LayerNormalization does not exist before opset 17; lowered, the model is still blocked: ${reshape}`,
      ),
      expect.stringMatching(/^graph > node 'rs' \(Reshape\): allowzero = 1 with shape 'shape'/),
    ]);
  });

  it("the expansion's bound applies", () => {
    const r = convertModel(parseModelText(layerNorm(-1)), 13, { maxNodes: 5 });
    expect(r.model).toBeUndefined();
    expect(r.plan.blocked.map((b) => b.message)).toEqual([
      expect.stringMatching(
        /^LayerNormalization does not exist at opset 13, and lowering it to its function body failed: expanding would make \d+ nodes, over --max-nodes 5/,
      ),
    ]);
  });
});

/** A local function with CastLike on its generic input (as torch's Hardswish module writes it). */
const scaleFn = `
  < domain: "local", opset_import: ["" : 15] >
  Scale (a) => (b) {
    two = Constant <value: tensor = int64[1] {2}> ()
    t = CastLike (two, a)
    b = Mul (a, t)
  }`;

/** Calls Scale: its input through Relu (which needs nothing lowered). */
const outerFn = `
  < domain: "local", opset_import: ["" : 15, "local" : 1] >
  Outer (a) => (b) {
    r = Relu (a)
    b = local.Scale (r)
  }`;

const header = `< ir_version: 8, opset_import: ["" : 15, "local" : 1] >`;

const fnNames = (m: { functions: { name: string }[] }) => m.functions.map((f) => f.name);

describe("convert lowers function ops inside model-local functions", () => {
  const twoTypes = `${header}
    g (float[2,3] x, double[2,3] d) => (float[2,3] y, double[2,3] z) {
      [cf] y = local.Scale (x)
      [cd] z = local.Scale (d)
    }
    ${scaleFn}`;

  it("a function called with float and with double: copied per signature, both lowered", async () => {
    const text = await convertAndCompare({ lower: true, text: twoTypes, target: 13 });
    expect(text).not.toMatch(/= CastLike /);
    expect(nodeLines(text)).toEqual(["[cf] y = local.Scale (x)", "[cd] z = local.Scale__2 (d)"]);
    expect(text).toContain("Cast <to: int = 1>");
    expect(text).toContain("Cast <to: int = 11>");
    const r = convertModel(parseModelText(twoTypes), 13);
    expect(fnNames(r.model!)).toEqual(["Scale", "Scale__2"]);
    expect(r.plan.lowered!.map((l) => `${l.where}: ${l.message}`)).toEqual([
      "function 'local.Scale' > node #1 (CastLike): CastLike does not exist at opset 13; the calls of its function differ in type: copied per signature ('local.Scale__2'): lowered to its function body",
    ]);
  });

  it("calls that differ only in shape share the function, lowered in place", async () => {
    const text = `${header}
      g (float[2,3] x, float[4,3] d) => (float[2,3] y, float[4,3] z) {
        [cf] y = local.Scale (x)
        [cd] z = local.Scale (d)
      }
      ${scaleFn}`;
    const out = await convertAndCompare({ lower: true, text, target: 11 });
    expect(out).not.toMatch(/= CastLike /);
    expect(fnNames(convertModel(parseModelText(text), 11).model!)).toEqual(["Scale"]);
  });

  it("nested: the caller is split first, then the function it calls, at any depth", async () => {
    const text = `${header}
      g (float[2,3] x, double[2,3] d, double[4,3] e) => (float[2,3] y, double[2,3] z, double[4,3] w) {
        [cf] y = local.Outer (x)
        [cd] z = local.Outer (d)
        [ce] w = local.Outer (e)
      }
      ${scaleFn}
      ${outerFn}`;
    const out = await convertAndCompare({ lower: true, text, target: 13 });
    expect(nodeLines(out)).toEqual([
      "[cf] y = local.Outer (x)",
      "[cd] z = local.Outer__2 (d)",
      "[ce] w = local.Outer__2 (e)",
    ]);
    const m = convertModel(parseModelText(text), 13).model!;
    expect(fnNames(m)).toEqual(["Scale", "Scale__2", "Outer", "Outer__2"]);
    const outer2 = m.functions.find((f) => f.name === "Outer__2")!;
    expect(outer2.nodes.map((n) => n.opType)).toEqual(["Relu", "Scale__2"]);
  });

  it("a copy has subgraphs of its own, each typed by its calls", async () => {
    const text = `${header}
      g (float[2,3] x, double[2,3] d, bool[1] c) => (float[2,3] y, double[2,3] z) {
        [cf] y = local.Pick (x, c)
        [cd] z = local.Pick (d, c)
      }
      < domain: "local", opset_import: ["" : 15] >
      Pick (a, c) => (b) {
        b = If (c) <
          then_branch = g1 () => (t1) {
            two = Constant <value: tensor = int64[1] {2}> ()
            k = CastLike (two, a)
            t1 = Mul (a, k)
          },
          else_branch = g2 () => (t2) { t2 = Neg (a) }
        >
      }`;
    for (const c of [0, 1]) {
      const feeds = randomFeeds(parseModelText(text));
      feeds.c = { dtype: 9, shape: [1], data: Uint8Array.of(c) };
      const out = await convertAndCompare({ lower: true, text, target: 13, feeds });
      expect(out).toContain("Cast <to: int = 1>");
      expect(out).toContain("Cast <to: int = 11>");
    }
  });

  it("functions whose calls agree, or that need nothing lowered, keep their identity", async () => {
    const text = `${header}
      g (float[2,3] x, double[2,3] d) => (float[2,3] y, double[2,3] z, float[2,3] w) {
        [o] w = local.Outer (x)
        [pf] y = local.Plain (x)
        [pd] z = local.Plain (d)
      }
      ${scaleFn}
      ${outerFn}
      < domain: "local", opset_import: ["" : 15] >
      Plain (a) => (b) { b = Relu (a) }`;
    const out = await convertAndCompare({ lower: true, text, target: 13 });
    expect(out).not.toMatch(/= CastLike /);
    expect(fnNames(convertModel(parseModelText(text), 13).model!)).toEqual([
      "Scale",
      "Outer",
      "Plain",
    ]);
  });

  it("lower: false refuses them as before, word for word", () => {
    const r = convertModel(parseModelText(twoTypes), 13, { lower: false });
    expect(r.model).toBeUndefined();
    expect(r.plan.blocked.map((b) => `${b.where}: ${b.message}`)).toEqual([
      "function 'local.Scale' > node #1 (CastLike): CastLike does not exist before opset 15; it is a function op: expand it first (`onnx-expand expand`), then convert",
    ]);
  });

  it("the copies are bounded like any expansion", () => {
    const r = convertModel(parseModelText(twoTypes), 13, { maxNodes: 7 });
    expect(r.model).toBeUndefined();
    expect(r.plan.blocked.map((b) => b.message)).toEqual([
      "CastLike does not exist at opset 13, and lowering it to its function body failed: expanding would make 8 nodes, over --max-nodes 7, which raises the limit; function 'local.Scale' alone makes 3 of them (1 call)",
    ]);
  });
});
