// The pass manager: requires -> run -> ensures, pipelines that stop at the first failure, and the
// test-mode check that a pass leaves its input alone.

import { describe, expect, it } from "vitest";
import type { Model } from "../../src/ir/types.js";
import { pipeline, runPass } from "../../src/passes/manager.js";
import { failureError, passContext, type Pass } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";

const m = () =>
  parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
    g (float[2] x) => (float[2] y) { y = Neg (x) }`);

const rename = (name: string): Pass => ({
  name,
  run: (model) => ({
    ok: true,
    model: { ...model, graph: { ...model.graph, name } },
    modified: true,
    notes: [{ level: "info", message: name }],
  }),
});

describe("runPass and pipeline", () => {
  it("does not run a pass whose precondition fails", () => {
    let ran = false;
    const r = runPass(
      {
        name: "picky",
        requires: () => [{ level: "error", message: "no" }],
        run: (model) => ((ran = true), { ok: true, model, modified: false, notes: [] }),
      },
      m(),
    );
    expect(ran).toBe(false);
    expect(r).toMatchObject({ ok: false, pass: "picky", stage: "requires" });
    expect(failureError(r as Extract<typeof r, { ok: false }>).code).toBe("E_MODEL");
  });

  it("fails a pass whose postcondition fails", () => {
    const p: Pass = { ...rename("a"), ensures: () => [{ level: "error", message: "broken" }] };
    const r = runPass(p, m());
    expect(r).toMatchObject({ ok: false, stage: "ensures" });
    expect(r.notes.map((n) => n.message)).toEqual(["a", "broken"]);
  });

  it("a pipeline runs its passes in order, gathers notes, stops at the first failure", () => {
    const ok = runPass(pipeline("two", [rename("a"), rename("b")]), m());
    expect(ok.ok && ok.model.graph.name).toBe("b");
    expect(ok.notes.map((n) => n.message)).toEqual(["a", "b"]);
    const failing: Pass = {
      name: "f",
      run: () => ({ ok: false, notes: [{ level: "error", message: "x" }] }),
    };
    const r = runPass(pipeline("p", [rename("a"), failing, rename("c")]), m());
    expect(r).toMatchObject({ ok: false, pass: "f" });
    expect(r.notes.map((n) => n.message)).toEqual(["a", "x"]);
  });

  it("a failure inside a nested pipeline is named by the inner pass, with its stage", () => {
    const picky: Pass = {
      name: "picky",
      requires: () => [{ level: "error", message: "no" }],
      run: (model) => ({ ok: true, model, modified: false, notes: [] }),
    };
    const inner = pipeline("inner", [rename("a"), picky]);
    const r = runPass(pipeline("outer", [rename("z"), inner, rename("c")]), m());
    expect(r).toMatchObject({ ok: false, pass: "picky", stage: "requires" });
    expect(r.notes.map((n) => n.message)).toEqual(["z", "a", "no"]);
    expect(failureError(r as Extract<typeof r, { ok: false }>).message).toBe("no");
  });

  it("a pipeline passes on a million notes of one pass (not as call arguments: no stack overflow)", () => {
    // What a conversion of a node with 582,000 inputs to opset 7 gives: a note per blocked node.
    const many: Pass = {
      name: "many",
      run: () => ({
        ok: false,
        notes: Array.from({ length: 1_000_000 }, (_, i) => ({ level: "error", message: `n${i}` })),
      }),
    };
    const r = runPass(pipeline("p", [rename("a"), many]), m());
    expect(r).toMatchObject({ ok: false, pass: "many" });
    expect(r.notes.length).toBe(1_000_001);
  });

  it("in test mode, a pass that mutates its input is an error", () => {
    const mutating: Pass = {
      name: "mutator",
      run(model: Model) {
        model.graph.nodes[0]!.opType = "Abs";
        return { ok: true, model, modified: true, notes: [] };
      },
    };
    expect(passContext().testMode).toBe(true);
    expect(() => runPass(mutating, m())).toThrow(/pass 'mutator' mutated the model it was given/);
    expect(() => runPass(mutating, m(), passContext({ testMode: false }))).not.toThrow();
  });
});
