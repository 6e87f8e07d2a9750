// The checker never throws on a malformed model: whatever the inputs, attributes and types of a
// node, the result is a list of one-line problems. Deterministic pseudo-random models per op.

import { describe, expect, it } from "vitest";
import { checkModel, type Problem } from "../../src/check/index.js";
import { RULES } from "../../src/check/rules/index.js";
import { attr, graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType, type Attribute, type Dim, type ValueInfo } from "../../src/ir/types.js";

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("malformed nodes", () => {
  const rnd = prng(20261202);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
  const body = graph({
    nodes: [node("Identity", ["a"], ["b"])],
    inputs: [valueInfo("a", "float", [2])],
    outputs: [valueInfo("b", "float", [2])],
  });
  const attrPool = (): Attribute[] =>
    [
      attr("axis", pick([0, 1, -1, 7])),
      attr("axes", pick([[0], [9], [], [0, 0]])),
      attr("keepdims", pick([0, 1])),
      attr("to", pick([1, 7, 99, 0])),
      attr("perm", pick([[0], [1, 0], []])),
      attr("num_scan_inputs", pick([0, 1, 5])),
      attr("start", pick([-9, 0, 2])),
      attr("end", pick([99, -1])),
      attr(
        "value",
        pick([Tensor.from(DataType.INT64, [1], [3n]), Tensor.from(DataType.FLOAT, [], [1])]),
      ),
      attr("starts", [1]),
      attr("ends", [2]),
      attr("pads", pick([[1, 1], [1]])),
      attr("then_branch", body),
      attr("else_branch", body),
      attr("body", body),
      attr("value_ints", [1]),
      attr("scan_input_axes", pick([[0], [5]])),
      attr("scan_output_axes", [3]),
    ].filter(() => rnd() < 0.3);
  const types: readonly ([string, Dim[] | undefined] | undefined)[] = [
    undefined,
    ["float", []],
    ["float", [2, 3]],
    ["int64", [2]],
    ["int64", []],
    ["bool", [1]],
    ["float", ["N", null]],
    ["float", undefined],
  ];
  const codes = new Set<string>();

  it.each([...RULES.keys()])("%s: 120 random variants check without throwing", (op) => {
    for (let it = 0; it < 120; it++) {
      const n = Math.floor(rnd() * 5);
      const inputs: ValueInfo[] = [];
      const initializers: Tensor[] = [];
      const names: string[] = [];
      for (let i = 0; i < n; i++) {
        const name = rnd() < 0.1 ? "" : `i${i}`;
        names.push(name);
        if (!name) continue;
        if (rnd() < 0.3) {
          const v = () => BigInt(Math.floor(rnd() * 7) - 3);
          initializers.push(Tensor.from(DataType.INT64, [2], [v(), v()], name));
        } else {
          const t = pick(types);
          inputs.push(t ? valueInfo(name, t[0], t[1]) : { name });
        }
      }
      const nd = { ...node(op, names, rnd() < 0.8 ? ["y"] : ["y", "z"]), attributes: attrPool() };
      const m = model(
        graph({ nodes: [nd], inputs, initializers, outputs: [{ name: "y" }] }),
        pick([9, 11, 13, 18, 29]),
        13,
      );
      let problems: Problem[] = [];
      expect(() => (problems = checkModel(m).problems)).not.toThrow();
      for (const p of problems) {
        codes.add(p.code);
        expect(p.message.length).toBeGreaterThan(0);
        expect(`${p.where}${p.message}`).not.toContain("\n");
      }
    }
  });

  it("the variants exercise many kinds of problem", () => {
    expect(codes.size).toBeGreaterThanOrEqual(10);
  });
});
