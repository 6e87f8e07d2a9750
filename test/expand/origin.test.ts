// Origin records (docs/semantics.md, "Origin records"): every node expand puts in names the
// calls it came from, outermost first; on the node from IR 10, in the model's table below.

import { describe, expect, it } from "vitest";
import { decodeModel, encodeModel } from "../../src/io/codec.js";
import {
  modelOrigins,
  ORIGIN_KEY,
  ORIGINS_KEY,
  originOf,
  withoutOrigins,
} from "../../src/inline/origin.js";
import type { Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";
import { expand } from "../helpers/expand.js";

const text = (ir: number) => `
  < ir_version: ${ir}, opset_import: ["" : 18, "local" : 1] >
  g (float[2,3] x) => (float[2,3] y, float[2,3] z) {
    [c] y = local.F (x)
    z = Celu (x)
  }
  < domain: "local", opset_import: ["" : 18] >
  F (a) => (b) {
    [inner] b = Celu <alpha: float = 2.0> (a)
  }`;

/** The model's table (it must have one), resolved to node key → origin. */
const table = (m: Model): Record<string, string> => {
  expect(m.metadataProps!.some(([k]) => k === ORIGINS_KEY)).toBe(true);
  return Object.fromEntries(modelOrigins(m));
};

describe("origin records", () => {
  it("IR 10: on each node, a path of calls outermost first, kept by the codec", () => {
    const r = expand(text(10));
    const m = decodeModel(encodeModel(r.model));
    expect(m.metadataProps ?? []).toEqual([]);
    const origins = m.graph.nodes.map((n) => [n.name, originOf(n)]);
    // Celu's body calls Elu: three calls deep for the nodes of Elu's body inside F.
    expect(origins).toContainEqual([
      expect.stringMatching(/^c__inner__/),
      expect.stringMatching(/^c\|local:F > c__inner\|ai\.onnx:Celu:12 > [\w]+\|ai\.onnx:Elu:6$/),
    ]);
    for (const [name, origin] of origins) {
      if (name!.startsWith("c__")) expect(origin).toMatch(/^c\|local:F( > |$)/);
      else expect(origin).toMatch(/^z\|ai\.onnx:Celu:12( > |$)/);
    }
  });

  it("below IR 10: one table; expanding again extends the paths", () => {
    const once = expand(text(8), { only: [{ domain: "local", op: "F" }] }).model;
    expect(once.graph.nodes.every((n) => !n.metadataProps)).toBe(true);
    expect(table(once)).toEqual({ c__inner: "c|local:F" });
    const twice = expand(once).model;
    const t = table(twice);
    expect(Object.keys(t).sort()).toEqual(twice.graph.nodes.map((n) => n.name!).sort());
    for (const [name, origin] of Object.entries(t))
      expect(origin).toMatch(
        name.startsWith("c__") ? /^c\|local:F > c__inner\|ai\.onnx:Celu:12/ : /^z\|/,
      );
  });

  it("origin: false records nothing; withoutOrigins removes every record", () => {
    const quiet = expand(text(10), { origin: false }).model;
    expect(quiet.graph.nodes.some((n) => n.metadataProps?.some(([k]) => k === ORIGIN_KEY))).toBe(
      false,
    );
    for (const ir of [8, 10]) {
      const loud = expand(text(ir)).model;
      expect(printModel(withoutOrigins(loud))).toBe(
        printModel(expand(text(ir), { origin: false }).model),
      );
    }
  });

  it("a model with nothing to expand is given back as it is", () => {
    const m = parseModelText(`< ir_version: 8, opset_import: ["" : 18] >
      g (float[2] x) => (float[2] y) { y = Relu (x) }`);
    const r = expand(m, { only: [{ domain: "", op: "Celu" }] });
    expect(r.modified).toBe(false);
    expect(r.model).toBe(m);
  });
});
