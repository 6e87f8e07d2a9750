// The graph visitor: copy-on-write rewriting at any depth, scopes and location labels.

import { describe, expect, it } from "vitest";
import {
  GraphScope,
  mapNodeGraphs,
  mapNodes,
  rewriteGraph,
  rewriteModel,
  rewriteNodes,
  visitSubgraphs,
} from "../../src/ir/visit.js";
import type { Graph, Node } from "../../src/ir/types.js";
import { parseGraphText, parseModelText } from "../../src/text/parse.js";

// An If whose then branch holds a Loop whose body holds a Scan whose body holds a ReduceSum.
const m = parseModelText(`
  <ir_version: 10, opset_import: ["" : 18, "local" : 1]>
  main (bool c, float[4] x, float[4] outer) => (float[4] y, float[4] z) {
    n = Neg (x)
    y = If (c) <
      then_branch = t () => (float[4] a) {
        a = Loop (trip, cond, outer) <
          body = lb (int64 i, bool ci, float[4] v) => (bool co, float[4] w) {
            co = Identity (ci)
            w = Scan (v) <
              num_scan_inputs = 1,
              body = sb (float s) => (float r) { r = ReduceSum <keepdims = 0> (s) }
            >
          }
        >
      },
      else_branch = e () => (float[4] b) { b = Abs (n) }
    >
    z = local.F (x)
  }
  <domain: "local", opset_import: ["" : 18]>
  F (p) => (q) {
    q = Relu (p)
  }`);

const sub = (n: Node, attribute: string): Graph =>
  n.attributes.find((a) => a.name === attribute)!.value as Graph;
const ifNode = m.graph.nodes[1]!;
const thenBranch = sub(ifNode, "then_branch");
const loop = thenBranch.nodes[0]!;
const loopBody = sub(loop, "body");
const scan = loopBody.nodes[1]!;
const scanBody = sub(scan, "body");

describe("rewriting", () => {
  it("gives back the very model, graph and list when nothing changes", () => {
    expect(rewriteModel(m, (n) => n)).toBe(m);
    const scope = GraphScope.main(m);
    expect(rewriteGraph(m.graph, scope, (n) => n)).toBe(m.graph);
    expect(rewriteNodes(m.graph.nodes, scope, (n) => n)).toBe(m.graph.nodes);
    expect(mapNodeGraphs(ifNode, (g) => g)).toBe(ifNode);
    expect(mapNodes(m.graph.nodes, (n) => n)).toBe(m.graph.nodes);
  });

  it("copies only the path to a change four graphs deep, sharing the rest", () => {
    const out = rewriteModel(m, (n) =>
      n.opType === "ReduceSum" ? { ...n, opType: "ReduceMax" } : n,
    );
    expect(out).not.toBe(m);
    expect(m.graph.nodes[1]).toBe(ifNode); // the input is left as it was
    expect(scanBody.nodes[0]!.opType).toBe("ReduceSum");
    const [n, y, z] = out.graph.nodes as [Node, Node, Node];
    expect(n).toBe(m.graph.nodes[0]);
    expect(z).toBe(m.graph.nodes[2]);
    expect(out.functions).toBe(m.functions);
    expect(sub(y, "else_branch")).toBe(sub(ifNode, "else_branch"));
    const loop2 = sub(y, "then_branch").nodes[0]!;
    const body2 = sub(loop2, "body");
    expect(body2.nodes[0]).toBe(loopBody.nodes[0]);
    expect(body2.inputs).toBe(loopBody.inputs);
    expect(sub(body2.nodes[1]!, "body").nodes[0]!.opType).toBe("ReduceMax");
  });

  it("replaces a node by several, or by none, and rewrites function bodies", () => {
    const out = rewriteModel(m, (n) =>
      n.opType === "Neg"
        ? []
        : n.opType === "Relu"
          ? [
              { ...n, outputs: ["t"] },
              { ...n, inputs: ["t"] },
            ]
          : n,
    );
    expect(out.graph.nodes.map((n) => n.opType)).toEqual(["If", "F"]);
    expect(out.functions[0]!.nodes.map((n) => n.opType)).toEqual(["Relu", "Relu"]);
    expect(m.functions[0]!.nodes).toHaveLength(1);
  });

  it("visits subgraphs before the node that holds them, each in its own scope", () => {
    const seen: string[] = [];
    rewriteModel(m, (n, _i, scope, original) => {
      seen.push(`${scope.depth}:${n.opType}`);
      expect(original.opType).toBe(n.opType);
      return n;
    });
    expect(seen).toEqual([
      "0:Neg",
      "2:Identity",
      "3:ReduceSum",
      "2:Scan",
      "1:Loop",
      "1:Abs",
      "0:If",
      "0:F",
      "0:Relu",
    ]);
  });

  it("hands the rewrite the node as it was, before its subgraphs changed", () => {
    rewriteModel(m, (n, _i, _s, original) => {
      if (n.opType === "Scan") {
        expect(original).toBe(scan);
        expect(n).not.toBe(scan);
      }
      return n.opType === "ReduceSum" ? { ...n, name: "r" } : n;
    });
  });

  it("maps GRAPHS attributes, telling each graph its place", () => {
    const g = parseGraphText(`g () => (float[1] a) { a = Constant <value = float[1] {1.0}> () }`);
    const n: Node = { ...ifNode, attributes: [{ name: "bodies", type: "GRAPHS", value: [g, g] }] };
    const places: (number | undefined)[] = [];
    const out = mapNodeGraphs(n, (x, a, k) => {
      places.push(k);
      expect(a.name).toBe("bodies");
      return k === 1 ? { ...x, name: "h" } : x;
    });
    expect(places).toEqual([0, 1]);
    const [g0, g1] = out.attributes[0]!.value as Graph[];
    expect(g0).toBe(g);
    expect(g1!.name).toBe("h");
    const wheres: string[] = [];
    visitSubgraphs(n, 4, GraphScope.main(m), (x, s) => (wheres.push(s.where), x));
    expect(wheres).toEqual(["graph > node #4 (If) bodies[0]", "graph > node #4 (If) bodies[1]"]);
  });
});

describe("scopes", () => {
  it("labels where a node is, as messages show it", () => {
    const labels = new Map<string, string>();
    rewriteModel(m, (n, i, scope) => (labels.set(n.opType, scope.nodeWhere(n, i)), n));
    expect(labels.get("Neg")).toBe("graph > node #0 (Neg)");
    expect(labels.get("ReduceSum")).toBe(
      "graph > node #1 (If) then_branch > node #0 (Loop) body > node #1 (Scan) body > node #0 (ReduceSum)",
    );
    expect(labels.get("Relu")).toBe("function 'local.F' > node #0 (Relu)");
  });

  it("builds a label only when it is read", () => {
    let built = 0;
    const s = new GraphScope(m.graph, () => (built++, "graph 'main'"));
    const child = s.child(thenBranch, ifNode, 1, "then_branch");
    expect(built).toBe(0);
    expect(child.where).toBe("graph 'main' > node #1 (If) then_branch");
    expect(child.where).toBe("graph 'main' > node #1 (If) then_branch");
    expect(built).toBe(1);
  });

  it("sees the names of enclosing graphs, not of a function's caller", () => {
    const scopes = new Map<string, GraphScope>();
    rewriteModel(m, (n, _i, scope) => (scopes.set(n.opType, scope), n));
    const inScan = scopes.get("ReduceSum")!;
    expect(inScan.defines("s")).toBe(true);
    expect(inScan.defines("v")).toBe(false);
    expect(inScan.definer("v")?.owner).toBe(loopBody);
    expect(inScan.definer("n")?.owner).toBe(m.graph);
    expect(inScan.definer("outer")?.owner).toBe(m.graph);
    expect(inScan.definer("nowhere")).toBeUndefined();
    const inF = scopes.get("Relu")!;
    expect(inF.defines("p") && inF.defines("q")).toBe(true);
    expect(inF.definer("x")).toBeUndefined();
    expect(scanBody).toBe(inScan.owner);
  });
});
