// Origin records (docs/semantics.md, "Origin records"): every node expand puts in names the
// calls it came from, outermost first; on the node from IR 10, in the model's table below.

import { describe, expect, it } from "vitest";
import { decodeModel, encodeModel } from "../../src/io/codec.js";
import {
  modelOrigins,
  ORIGIN_KEY,
  ORIGINS_KEY,
  originOf,
  originsFromTable,
  placeOrigins,
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

  it("below IR 10: the table lists runs of consecutive nodes, keyed by their first", () => {
    const m = expand(text(8)).model;
    const runs = JSON.parse(m.metadataProps!.find(([k]) => k === ORIGINS_KEY)![1]) as unknown[][];
    const names = m.graph.nodes.map((n) => n.name!);
    let covered = 0;
    for (const r of runs) {
      const count = r.length === 2 ? 1 : (r[1] as number);
      const at = names.indexOf(r[0] as string);
      expect(at).toBeGreaterThanOrEqual(0);
      for (let i = at; i < at + count; i++) expect(table(m)[names[i]!]).toBe(r[r.length - 1]);
      covered += count;
    }
    expect(covered).toBe(names.length);
    // consecutive nodes with one origin share a run
    expect(runs.length).toBeLessThan(names.length);
  });

  it("reads a table written before runs (an object from node name to origin)", () => {
    const once = expand(text(8), { only: [{ domain: "local", op: "F" }] }).model;
    const old: Model = {
      ...once,
      metadataProps: [[ORIGINS_KEY, JSON.stringify(Object.fromEntries(modelOrigins(once)))]],
    };
    expect(table(old)).toEqual({ c__inner: "c|local:F" });
    expect(printModel(expand(old).model)).toBe(printModel(expand(once).model));
  });

  it("a local function that stays: its nodes keyed <function>::<name>; stale entries kept", () => {
    const m = expand(text(8), { only: [{ domain: "", op: "Celu" }] }).model;
    const t = table(m);
    expect(Object.keys(t).filter((k) => k.startsWith("local:F::")).length).toBe(
      m.functions[0]!.nodes.length,
    );
    for (const [k, v] of Object.entries(t))
      expect(v).toMatch(k.startsWith("local:F::") ? /^inner\|ai\.onnx:Celu:12/ : /^z\|/);
    // An entry that meets no node stays in the table when origins are placed again.
    const runs = JSON.parse(m.metadataProps!.find(([k]) => k === ORIGINS_KEY)![1]) as unknown[];
    const stale: Model = {
      ...m,
      metadataProps: [[ORIGINS_KEY, JSON.stringify([...runs, ["gone", "g|local:G"]])]],
    };
    const again = placeOrigins(originsFromTable(stale));
    expect(table(again)).toEqual(t);
    const marked: Model = {
      ...stale,
      graph: {
        ...stale.graph,
        nodes: stale.graph.nodes.map((n) => ({
          ...n,
          metadataProps: [[ORIGIN_KEY, "x|y"]] as [string, string][],
        })),
      },
    };
    const placed = JSON.parse(placeOrigins(marked).metadataProps![0]![1]) as unknown[][];
    expect(placed).toContainEqual(["gone", "g|local:G"]);
  });

  it("placing the records leaves the model given as it was; expand leaves its input as it was", () => {
    const deferred = expand(text(8), { deferOrigins: true }).model;
    const before = printModel(deferred);
    const placed = placeOrigins(deferred);
    expect(printModel(deferred)).toBe(before);
    expect(placed.graph.nodes.every((n) => !n.metadataProps)).toBe(true);
    expect(table(placed)).toEqual(table(expand(text(8)).model));
    const input = parseModelText(text(8));
    const seen = printModel(input);
    expand(input);
    expect(printModel(input)).toBe(seen);
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
