// The attribute defaults the schema states are bound into a node by the executor before its
// kernel runs, once per node: a Loop that runs a node many times binds it once.

import { describe, expect, it } from "vitest";
import { defaultBindings, withDefaults } from "../../src/interp/defaults.js";
import { run } from "../../src/interp/executor.js";
import { getAttr } from "../../src/ir/attributes.js";
import type { Model } from "../../src/ir/types.js";
import { versionInForce } from "../../src/schema/facts.js";
import { attr, f32, graph, i64, model, node, vals, valueInfo } from "../helpers/interp.js";

// Loop body: acc' = LeakyRelu(acc), with alpha left to its default.
const loopModel = (): Model =>
  model(
    graph({
      nodes: [
        node("Loop", ["M", "", "a"], ["final"], {
          body: graph({
            nodes: [node("LeakyRelu", ["acc"], ["acc2"]), node("Identity", ["cond"], ["cond2"])],
            inputs: [
              valueInfo("i", "int64", []),
              valueInfo("cond", "bool", []),
              valueInfo("acc", "float", [1]),
            ],
            outputs: [valueInfo("cond2", "bool"), valueInfo("acc2", "float")],
          }),
        }),
      ],
      inputs: [valueInfo("M", "int64", []), valueInfo("a", "float", [1])],
      outputs: [valueInfo("final", "float")],
    }),
  );

const bindingsOf = (iterations: number): { bindings: number; final: number } => {
  const m = loopModel();
  const before = defaultBindings();
  const out = run(m, { M: i64([], [iterations]), a: f32([1], [-1]) });
  return { bindings: defaultBindings() - before, final: vals(out.final!)[0] as number };
};

describe("the executor binds the schema's attribute defaults", () => {
  it("once per node, however many times a Loop runs it", () => {
    const once = bindingsOf(1);
    const many = bindingsOf(30);
    // Loop, LeakyRelu and Identity: one binding each, for one iteration or thirty.
    expect(once.bindings).toBe(3);
    expect(many.bindings).toBe(3);
  });

  it("the kernel sees the default (LeakyRelu's alpha 0.01, as a float32 attribute holds it)", () => {
    const alpha = Math.fround(0.01);
    expect(bindingsOf(2).final).toBe(Math.fround(-1 * alpha * alpha));
  });

  it("adds only what the node leaves out, and gives the node back when it leaves out nothing", () => {
    const v = versionInForce("", "LeakyRelu", 16)!;
    const given = node("LeakyRelu", ["x"], ["y"], { alpha: 0.5 });
    expect(withDefaults(given, v)).toBe(given);
    const bare = node("LeakyRelu", ["x"], ["y"]);
    const bound = withDefaults(bare, v);
    expect(bound).not.toBe(bare);
    expect(bare.attributes).toEqual([]);
    expect(getAttr(bound, "alpha")).toEqual(attr("alpha", Math.fround(0.01), "FLOAT"));
    expect(withDefaults(bare, v)).toBe(bound);
    expect(withDefaults(bound, v)).toBe(bound);
  });

  it("an attribute of the wrong type gives way to the default", () => {
    const v = versionInForce("", "LeakyRelu", 16)!;
    const wrong = node("LeakyRelu", ["x"], ["y"], { alpha: 2n });
    const bound = withDefaults(wrong, v);
    expect(bound.attributes.filter((a) => a.name === "alpha")).toEqual([
      attr("alpha", Math.fround(0.01), "FLOAT"),
    ]);
  });
});
