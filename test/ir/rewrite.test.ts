// The shared rewrite primitives: mapping a node's subgraphs, binding @ref attributes to a call.

import { describe, expect, it } from "vitest";
import { callInputTypes, inlineCall } from "../../src/expand/inline.js";
import { run } from "../../src/interp/index.js";
import { attr } from "../../src/ir/builder.js";
import { NameScope } from "../../src/ir/graph.js";
import { bindRefs, resolveRef } from "../../src/ir/rewrite.js";
import { mapNodeGraphs } from "../../src/ir/visit.js";
import type { Attribute, Graph, Node } from "../../src/ir/types.js";
import { SchemaRegistry } from "../../src/schema/index.js";
import { parseGraphText, parseModelText, parseNodeListText } from "../../src/text/parse.js";
import { DataType, T } from "../helpers/interp.js";

const ref = (name: string, type: Attribute["type"], to: string) =>
  ({ name, type, refAttrName: to }) as Attribute;

describe("mapNodeGraphs", () => {
  const [ifNode] = parseNodeListText(`
    y = If (c) <
      then_branch = t () => (float[1] a) { a = Constant <value = float[1] {1.0}> () },
      else_branch = e () => (float[1] b) { b = Constant <value = float[1] {2.0}> () }
    >`) as [Node];

  it("maps every GRAPH attribute and leaves the input as it was", () => {
    const renamed = mapNodeGraphs(ifNode, (g) => ({ ...g, name: `${g.name}2` }));
    expect(renamed.attributes.map((a) => (a.value as Graph).name)).toEqual(["t2", "e2"]);
    expect(ifNode.attributes.map((a) => (a.value as Graph).name)).toEqual(["t", "e"]);
  });

  it("maps GRAPHS attributes too", () => {
    const g = parseGraphText(`g () => (float[1] a) { a = Constant <value = float[1] {1.0}> () }`);
    const n: Node = { ...ifNode, attributes: [{ name: "bodies", type: "GRAPHS", value: [g, g] }] };
    const out = mapNodeGraphs(n, (x) => ({ ...x, name: "h" }));
    expect((out.attributes[0]!.value as Graph[]).map((x) => x.name)).toEqual(["h", "h"]);
  });

  it("returns the very node when nothing changes", () => {
    expect(mapNodeGraphs(ifNode, (g) => g)).toBe(ifNode);
  });
});

describe("binding @ref attributes", () => {
  it("binds a value under the attribute's own name, and leaves out what the call does not give", () => {
    expect(resolveRef(ref("alpha", "FLOAT", "a"), attr("a", 0.5))).toEqual(attr("alpha", 0.5));
    expect(resolveRef(ref("alpha", "FLOAT", "a"), undefined)).toBeUndefined();
  });

  it("keeps a reference to a reference, renamed to the enclosing call's attribute", () => {
    // The call is a node inside a function that passes its own attribute on (`a = @x`).
    expect(resolveRef(ref("alpha", "FLOAT", "a"), ref("a", "FLOAT", "x"))).toEqual(
      ref("alpha", "FLOAT", "x"),
    );
  });

  it("binds inside subgraphs and shares nodes without references", () => {
    const nodes = parseNodeListText(`
      y = LeakyRelu <alpha: float = @a> (x)
      z = If (c) <
        then_branch = t () => (float[1] p) { p = LeakyRelu <alpha: float = @a> (x) },
        else_branch = e () => (float[1] q) { q = Relu (x) }
      >
      w = Relu (x)`);
    const bound = bindRefs(nodes, (name) => (name === "a" ? attr("a", 0.25) : undefined));
    expect(bound[0]!.attributes).toEqual([attr("alpha", 0.25)]);
    const then = bound[1]!.attributes[0]!.value as Graph;
    expect(then.nodes[0]!.attributes).toEqual([attr("alpha", 0.25)]);
    const elseBranch = bound[1]!.attributes[1]!.value as Graph;
    expect(elseBranch).toBe(nodes[1]!.attributes[1]!.value);
    expect(bound[2]).toBe(nodes[2]);
  });

  // A call of a function op inside a model-local function passes the enclosing function's
  // attribute on (keepdims = @kd). Inlining that call must leave a reference to kd, resolved when
  // F itself is called with kd = 0; dropping it would fall back to keepdims = 1, another shape.
  it("resolves a reference passed on by a call inside a function against the enclosing call", () => {
    const m = parseModelText(`
      <ir_version: 10, opset_import: ["" : 18, "local" : 1]>
      g (float[4,6] x) => (float[4] y) {
        axes = Constant <value = int64[1] {1}> ()
        y = local.F <kd = 0> (x, axes)
      }
      <domain: "local", opset_import: ["" : 18]>
      F <kd> (a, ax) => (b) {
        b = ReduceLogSum <keepdims: int = @kd> (a, ax)
      }`);
    const f = m.functions[0]!;
    const call = f.nodes[0]!;
    const op = SchemaRegistry.default().resolve("", "ReduceLogSum", 18);
    const { nodes } = inlineCall(call, op, callInputTypes(m, call, f), new NameScope(m.graph));
    const refs = nodes.flatMap((n) => n.attributes.filter((a) => a.name === "keepdims"));
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.every((a) => a.refAttrName === "kd")).toBe(true);
    const inlined = { ...m, functions: [{ ...f, nodes }] };
    const x = T(
      DataType.FLOAT,
      [4, 6],
      Array.from({ length: 24 }, (_, i) => 1 + i / 8),
    );
    const want = run(m, { x }).y!;
    const got = run(inlined, { x }).y!;
    expect(got.shape).toEqual([4]);
    expect(got.shape).toEqual(want.shape);
    expect(Array.from(got.data as Float32Array)).toEqual(Array.from(want.data as Float32Array));
  });
});
