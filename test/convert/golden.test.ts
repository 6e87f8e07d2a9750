// Golden text: representative models (test/golden/convert/<name>.onnxtxt) converted to the
// targets below, printed, compared with <name>.to<N>.onnxtxt; and each conversion run in the
// interpreter beside its input on seeded random inputs, giving the same numbers. Refresh the
// files with `npm run golden:update`, then review `git diff test/golden`.

import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { convertModel } from "../../src/convert/index.js";
import { fromFloat64 } from "../../src/interp/tensor.js";
import type { RValue } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { printModel } from "../../src/text/print.js";
import { expectGolden } from "../helpers/golden.js";
import { expectSameOutputs } from "../helpers/pass.js";
import { expectValid } from "../helpers/convert.js";

const file = (name: string) => fileURLToPath(new URL(`../golden/convert/${name}`, import.meta.url));

interface Case {
  name: string;
  targets: number[];
  /** Outputs made by ops the interpreter lacks: dropped, with their nodes, before running. */
  opaque?: string[];
  /** Runs, each with these inputs fixed (the rest seeded random); default one run. */
  runs?: Record<string, RValue>[];
}

const bool = (b: boolean) => fromFloat64(DataType.BOOL, [], [b ? 1 : 0]);

const CASES: Case[] = [
  {
    name: "reduce-mixed-12",
    targets: [18, 11],
    opaque: ["e"],
    runs: [{ c: bool(true) }, { c: bool(false) }],
  },
  { name: "reduce-noop-18", targets: [13] },
  { name: "function-11", targets: [18] },
  { name: "legacy-3", targets: [13] },
  // Family adapters: Clip, Pad, legacy broadcast, PRelu, Softmax, Split up from 6; the Softmax
  // family, ArgMax select_last_index, Split, Resize and Dropout down from 13.
  { name: "adapters-6", targets: [13, 18] },
  { name: "adapters-13", targets: [11] },
];

/** The model without the named main-graph outputs and the nodes that make them. */
function without(m: Model, outputs: string[]): Model {
  const drop = new Set(outputs);
  const graph = m.graph;
  return {
    ...m,
    graph: {
      ...graph,
      outputs: graph.outputs.filter((o) => !drop.has(o.name)),
      nodes: graph.nodes.filter((n) => !n.outputs.some((o) => drop.has(o))),
    },
  };
}

describe("golden conversions", () => {
  for (const { name, targets, opaque = [], runs = [{}] } of CASES)
    for (const target of targets)
      it(`${name} -> opset ${target}`, () => {
        const model = loadModel(file(`${name}.onnxtxt`));
        const input = printModel(model);
        const r = convertModel(model, target);
        expect(r.plan.blocked).toEqual([]);
        expectValid(r.model!);
        expectGolden(file(`${name}.to${target}.onnxtxt`), printModel(r.model!));
        expect(printModel(model), "the converter must not change its input").toBe(input);
        for (const inputs of runs)
          expectSameOutputs(without(model, opaque), without(r.model!, opaque), { inputs });
      });
});
