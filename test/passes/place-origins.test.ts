// place-origins: the origin records an expansion left on its nodes (ExpandOptions.deferOrigins)
// placed for the model's IR version: kept on the nodes from IR 10, moved below it into the
// model's table (docs/semantics.md, "Origin records"); the last pass of `expand --opset N`.

import { describe, expect, it } from "vitest";
import { expandPipeline, placeOriginsPass } from "../../src/expand/pipeline.js";
import { ORIGIN_KEY, ORIGINS_KEY, originOf } from "../../src/inline/origin.js";
import type { Model } from "../../src/ir/types.js";
import { runPass } from "../../src/passes/manager.js";
import { modelOf, passContext } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { printModel } from "../../src/text/print.js";
import { expectSameOutputs } from "../helpers/pass.js";

/** Celu expanded with its records left on the nodes, at this IR version. */
function deferred(ir: number): Model {
  const m = parseModelText(`<ir_version: ${ir}, opset_import: ["" : 18]>
    g (float[3] x) => (float[3] y) { [c] y = Celu <alpha: float = 2.0> (x) }`);
  return modelOf(runPass(expandPipeline({ deferOrigins: true }), m, passContext()));
}

describe("place-origins", () => {
  it("below IR 10, moves the nodes' records into the model's table", () => {
    const before = deferred(8);
    // Celu's body calls Elu: its nodes' paths go one call deeper.
    const records = before.graph.nodes.map((n) => originOf(n)!);
    expect(records.every((o) => o.startsWith("c|ai.onnx:Celu:12"))).toBe(true);
    expect(records).toContain("c|ai.onnx:Celu:12 > _celu_elu2|ai.onnx:Elu:6");
    const printed = printModel(before);
    const r = runPass(placeOriginsPass(), before, passContext());
    expect(r.ok && r.modified).toBe(true);
    if (!r.ok) return;
    expect(printModel(before)).toBe(printed);
    expect(r.model.graph.nodes.some((n) => n.metadataProps?.some(([k]) => k === ORIGIN_KEY))).toBe(
      false,
    );
    // One run per stretch of consecutive nodes with one record: [key, count, origin].
    const runs: (string | number)[][] = [];
    records.forEach((o, i) => {
      const last = runs[runs.length - 1];
      if (last && last[last.length - 1] === o && records[i - 1] === o) {
        if (last.length === 2) last.splice(1, 0, 2);
        else (last[1] as number)++;
      } else runs.push([before.graph.nodes[i]!.name!, o]);
    });
    const table = r.model.metadataProps?.find(([k]) => k === ORIGINS_KEY)?.[1];
    expect(JSON.parse(table!)).toEqual(runs);
    expectSameOutputs(before, r.model);
  });

  it("from IR 10, leaves them on the nodes: nothing to do", () => {
    const before = deferred(10);
    const r = runPass(placeOriginsPass(), before, passContext());
    expect(r.ok && !r.modified && r.model === before).toBe(true);
  });

  it("a model without records is given back as it is", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g (float[3] x) => (float[3] y) { y = Relu (x) }`);
    const r = runPass(placeOriginsPass(), m, passContext());
    expect(r.ok && !r.modified && r.model === m).toBe(true);
  });
});
