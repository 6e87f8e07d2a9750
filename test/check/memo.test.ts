// The checker memoises the analysis of nodes alike ones already analysed, and analyses nodes in
// their stored order while that is the topological order: what depends on the scope (undefined
// inputs, declared types, duplicate names) is still checked at each node, and out-of-order
// graphs give what they gave before.

import { describe, expect, it } from "vitest";
import { checkModel, inferTypes } from "../../src/check/index.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import type { Model, Node, ValueInfo } from "../../src/ir/types.js";

const f32 = (name: string, shape?: number[]) => valueInfo(name, "float", shape);

function build(nodes: Node[], inputs: ValueInfo[], valueInfos: ValueInfo[] = []): Model {
  const last = nodes[nodes.length - 1]!.outputs[0]!;
  return model(graph({ nodes, inputs, outputs: [{ name: last }], valueInfo: valueInfos }), 18);
}

const messages = (m: Model) => checkModel(m).problems.map((p) => `${p.where}: ${p.message}`);

describe("alike nodes", () => {
  it("a declared type that conflicts is reported at the node that has it only", () => {
    const m = build(
      [
        node("Relu", ["x"], ["a"], {}, { name: "r1" }),
        node("Relu", ["x"], ["b"], {}, { name: "r2" }),
        node("Add", ["a", "b"], ["y"], {}, { name: "add" }),
      ],
      [f32("x", [2, 3])],
      [f32("b", [2, 4])],
    );
    const ps = messages(m);
    expect(ps.some((p) => p.includes("r2") && p.includes("output 'b'"))).toBe(true);
    expect(ps.some((p) => p.includes("r1"))).toBe(false);
  });

  it("an undefined input is reported at every node that reads it", () => {
    const m = build(
      [
        node("Relu", ["x"], ["a"], {}, { name: "r1" }),
        node("Relu", ["nope"], ["b"], {}, { name: "r2" }),
        node("Relu", ["nope"], ["y"], {}, { name: "r3" }),
      ],
      [f32("x", [2])],
    );
    const ps = messages(m).filter((p) => p.includes("'nope' is not defined"));
    expect(ps).toHaveLength(2);
    expect(ps[0]).toContain("r2");
    expect(ps[1]).toContain("r3");
  });

  it("an output defined twice names the node that defined it first", () => {
    const m = build(
      [
        node("Relu", ["x"], ["a"], {}, { name: "first" }),
        node("Relu", ["x"], ["a"], {}, { name: "second" }),
        node("Relu", ["a"], ["y"], {}, { name: "last" }),
      ],
      [f32("x", [2])],
    );
    const dup = messages(m).filter((p) => p.includes("defined twice"));
    expect(dup).toHaveLength(1);
    expect(dup[0]).toMatch(/^node 'second'.*as an output of node 'first'/);
  });

  it("alike ops on inputs of other shapes get their own shapes", () => {
    const m = build(
      [
        node("ReduceSum", ["x"], ["a"], { keepdims: 1 }),
        node("ReduceSum", ["z"], ["b"], { keepdims: 1 }),
        node("ReduceSum", ["x"], ["c"], { keepdims: 0 }),
        node("Add", ["a", "b"], ["y"]),
      ],
      [f32("x", [2, 3]), f32("z", [4, 5, 6])],
    );
    const t = inferTypes(m);
    expect(t.get("a")).toMatchObject({ shape: [1, 1] });
    expect(t.get("b")).toMatchObject({ shape: [1, 1, 1] });
    expect(t.get("c")).toMatchObject({ shape: [] });
  });
});

describe("nodes out of order", () => {
  const nodes = () => [
    node("Relu", ["a"], ["b"], {}, { name: "second" }),
    node("Relu", ["x"], ["a"], {}, { name: "first" }),
    node("Relu", ["b"], ["y"], {}, { name: "third" }),
  ];

  it("are analysed in topological order, as when stored in it", () => {
    const stored = build(nodes(), [f32("x", [2])]);
    const sorted = build([nodes()[1]!, nodes()[0]!, nodes()[2]!], [f32("x", [2])]);
    expect(messages(stored)).toEqual(messages(sorted));
    expect(messages(stored)).toEqual([]);
    expect([...inferTypes(stored)]).toEqual([
      ...[...inferTypes(sorted)].sort(
        (p, q) => ["x", "a", "b", "y"].indexOf(p[0]) - ["x", "a", "b", "y"].indexOf(q[0]),
      ),
    ]);
  });

  it("a value defined again by a later node reorders its readers after it", () => {
    // 'a' is a graph input and an output of the last node: the reader comes after that node.
    const m = build(
      [
        node("Relu", ["a"], ["y"], {}, { name: "reader" }),
        node("Relu", ["x"], ["a"], {}, { name: "writer" }),
      ],
      [f32("x", [2]), f32("a", [3])],
    );
    const ps = messages(m);
    expect(ps).toHaveLength(1);
    expect(ps[0]).toMatch(/^node 'writer'.*defined twice/);
  });
});
