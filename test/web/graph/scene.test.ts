// The scene of a view: nodes grouped by where they came from (the expander's origin records,
// torch's dynamo metadata, torch's legacy scope names), trivial levels merged, big groups
// collapsed where their level is large, and constants set apart for folding.

import { describe, expect, it } from "vitest";
import {
  dynamoScope,
  type Scene,
  enclosingGroups,
  groupMark,
  legacyScope,
  openGroups,
} from "../../../web/graph/scene.js";
import { node, scene } from "./fixtures.js";

const labels = (s: ReturnType<typeof scene>) => s.groups.map((g) => `${g.key} (${g.count})`).sort();

describe("scene grouping", () => {
  it("reads torch's legacy scope names, merging single-child levels", () => {
    const s = scene(
      [
        node("MatMul", ["x", "w"], ["a"], "/encoder/layer.0/attention/MatMul"),
        node("Add", ["a", "b"], ["c"], "/encoder/layer.0/attention/Add"),
        node("Relu", ["c"], ["d"], "/encoder/layer.1/Relu"),
        node("Softmax", ["d"], ["y"], "/encoder/layer.1/Softmax"),
      ],
      ["x"],
      ["y"],
    );
    // "encoder" holds everything: the root takes it over
    expect(labels(s)).toEqual(["g (4)", "gencoder/layer.0/attention (2)", "gencoder/layer.1 (2)"]);
    expect(s.groups.find((g) => g.key === "gencoder/layer.0/attention")!.label).toBe(
      "layer.0/attention",
    );
    expect(enclosingGroups(s, 0)).toEqual(["gencoder/layer.0/attention"]);
    expect(enclosingGroups(s, 3)).toEqual(["gencoder/layer.1"]);
    expect(legacyScope("/a/b/Op_3")).toEqual(["a", "b"]);
    expect(legacyScope("Relu_3")).toEqual([]);
  });

  it("places unscoped nodes in their consumers' scope, else their producers' (issue 32, item 4)", () => {
    const s = scene(
      [
        // torch leaves shape arithmetic and weight copies unscoped
        node("Identity", ["w0"], ["w"], "Identity_2655"),
        node("Shape", ["x"], ["sh"], "Shape_12"),
        node("Reshape", ["x", "sh"], ["r"], "/enc/layer.0/Reshape"),
        node("MatMul", ["r", "w"], ["a"], "/enc/layer.0/MatMul"),
        node("MatMul", ["a", "w"], ["b"], "/enc/layer.1/MatMul"),
        node("Relu", ["b"], ["c"], "/Relu"),
        node("Neg", ["c"], ["y"], "Neg_99"),
      ],
      ["x", "w0"],
      ["y"],
    );
    const at = (i: number) => enclosingGroups(s, i).at(-1) ?? "top";
    // the Shape feeds only layer.0's Reshape: it is layer.0's
    expect(at(1)).toBe("genc/layer.0");
    // the weight copy feeds both layers: their common module
    expect(at(0)).toBe("genc");
    // torch put Relu at the top ("/Relu"): it stays there, and so does what follows it
    expect(at(5)).toBe("top");
    expect(at(6)).toBe("top");
  });

  it("reads the dynamo exporter's name scopes and namespace", () => {
    expect(
      dynamoScope([["pkg.torch.onnx.name_scopes", "['', 'network', 'network.0', 'linear']"]]),
    ).toEqual(["network", "network.0"]);
    expect(
      dynamoScope([
        [
          "namespace",
          "network: torch.nn.Sequential/network.0: torch.nn.Linear/linear: aten.linear.default",
        ],
      ]),
    ).toEqual(["network", "network.0"]);
    const scoped = (scopes: string) =>
      [["pkg.torch.onnx.name_scopes", scopes]] as [string, string][];
    const s = scene(
      [
        node("MatMul", ["x", "w"], ["a"], "node_linear", scoped("['', 'l1', 'linear']")),
        node("Add", ["a", "b"], ["c"], "node_add", scoped("['', 'l1', 'add']")),
        node("Relu", ["c"], ["y"], "node_relu", scoped("['', 'relu']")),
      ],
      ["x"],
      ["y"],
    );
    expect(labels(s)).toEqual(["g (3)", "gl1 (2)"]);
    expect(enclosingGroups(s, 2)).toEqual([]);
  });

  it("groups by the expander's origin records, in nodes or in the model's table", () => {
    const origin = (o: string) => [["onnx-expand.origin", o]] as [string, string][];
    const s = scene(
      [
        node("Exp", ["x"], ["e"], "ls__Exp", origin("ls|ai.onnx:LogSoftmax:13")),
        node("Log", ["e"], ["l"], "ls__Log", origin("ls|ai.onnx:LogSoftmax:13 > ls__m|local:M")),
        node("Relu", ["l"], ["y"], "relu"),
      ],
      ["x"],
      ["y"],
    );
    expect(labels(s)).toEqual([
      "g (3)",
      "gls|ai.onnx:LogSoftmax:13 (2)",
      "gls|ai.onnx:LogSoftmax:13/ls__m|local:M (1)",
    ]);
    expect(s.groups.map((g) => g.label)).toContain("ls (ai.onnx:LogSoftmax:13)");
    expect(enclosingGroups(s, 1)).toEqual([
      "gls|ai.onnx:LogSoftmax:13",
      "gls|ai.onnx:LogSoftmax:13/ls__m|local:M",
    ]);
    // the table as written before runs (node name -> origin), and as runs: a run covers its
    // first node and the ones after it, up to its count
    const tables = [{ a1: "call1 f", a2: "call1 f" }, [["a1", 2, "call1 f"]]];
    for (const table of tables) {
      const t = scene(
        [
          node("Exp", ["x"], ["e"], "a1"),
          node("Log", ["e"], ["l"], "a2"),
          node("Relu", ["l"], ["y"], "r"),
        ],
        ["x"],
        ["y"],
        { modelMetadata: [["onnx-expand.origins", JSON.stringify(table)]] },
      );
      expect(labels(t)).toEqual(["g (3)", "gcall1 f (2)"]);
    }
    // a call named the legacy way keeps its scope
    const u = scene(
      [
        node("Exp", ["x"], ["e"], "/enc/ls__Exp", origin("/enc/ls|ai.onnx:LogSoftmax:13")),
        node("Relu", ["e"], ["y"], "/dec/Relu"),
      ],
      ["x"],
      ["y"],
    );
    expect(enclosingGroups(u, 0)).toEqual(["genc/ls|ai.onnx:LogSoftmax:13"]);
    expect(u.groups.map((g) => g.label)).toContain("enc/ls (ai.onnx:LogSoftmax:13)");
  });

  it("puts what a dynamo-scoped call expanded into inside the call's module scope", () => {
    const scopes = (...s: string[]) =>
      [["pkg.torch.onnx.name_scopes", `[${["", ...s].map((x) => `'${x}'`).join(", ")}]`]] as [
        string,
        string,
      ][];
    const origin = (o: string) => [["onnx-expand.origin", o]] as [string, string][];
    const call = "node_LayerNormalization_1";
    const before = [
      node("MatMul", ["x", "w"], ["m"], "node_MatMul_0", scopes("enc", "enc.lin", "node_MatMul_0")),
      node("LayerNormalization", ["m"], ["y"], call, scopes("enc", "enc.norm", call)),
    ];
    const after = [
      before[0]!,
      node(
        "ReduceMean",
        ["m"],
        ["mu"],
        `${call}__n0`,
        origin(`${call}|ai.onnx:LayerNormalization:17`),
      ),
      node(
        "Sub",
        ["m", "mu"],
        ["y"],
        `${call}__n1`,
        origin(`${call}|ai.onnx:LayerNormalization:17`),
      ),
    ];
    // the innermost group (levels with one child are merged into it)
    const inner = (sc: Scene, i: number) => enclosingGroups(sc, i).at(-1);
    const path = `genc/enc.norm/${call}|ai.onnx:LayerNormalization:17`;
    // the call is gone from the expanded graph: found in the graph it was expanded from
    const s = scene(after, ["x", "w"], ["y"], { callers: before });
    for (const i of [1, 2]) expect(inner(s, i)).toBe(path);
    expect(inner(s, 0)).toBe("genc/enc.lin");
    // without it (a lowered model opened alone), the call's box goes beside the module it
    // follows, inside that module's parent: not at the top level
    const t = scene(after, ["x", "w"], ["y"]);
    expect(inner(t, 1)).toBe(`genc/${call}|ai.onnx:LayerNormalization:17`);
    // a call still in the graph (a partial expansion) lends its scope too
    const u = scene([...after, before[1]!], ["x", "w"], ["y"]);
    expect(inner(u, 1)).toBe(path);
  });

  it("collapses groups of a large level, never the group holding everything", () => {
    const nodes = [];
    for (let b = 0; b < 30; b++)
      for (let k = 0; k < 3; k++)
        nodes.push(
          node("Relu", [k ? `v${b}_${k - 1}` : "x"], [`v${b}_${k}`], `/m/block${b}/Relu_${k}`),
        );
    const s = scene(nodes, ["x"], []);
    const open = openGroups(s);
    expect(s.groups[0]!.count).toBe(90);
    expect(s.groups.length).toBe(31);
    expect([...open.slice(1)].every((x) => x === 0)).toBe(true);
    const opened = openGroups(s, ["gm/block3"]);
    expect(opened[s.byKey.get("gm/block3")!]).toBe(1);
    // a small level stays open, unless closed
    const small = scene(nodes.slice(0, 9), ["x"], []);
    expect([...openGroups(small)].every((x) => x === 1)).toBe(true);
    expect(openGroups(small, [], ["gm/block1"])[small.byKey.get("gm/block1")!]).toBe(0);
  });

  it("shows a wrapped decoder by layer: wrappers open, layers labelled by their own part", () => {
    // torch's dynamo export of a causal LM inside a wrapper module (`inner`): cumulative module
    // paths, and its size reads under the scope of no module.
    const scoped = (...path: string[]) =>
      [["pkg.torch.onnx.name_scopes", `[${["", ...path].map((x) => `'${x}'`).join(", ")}]`]] as [
        string,
        string,
      ][];
    const hook = "_empty_nn_module_stack_from_metadata_hook";
    const nodes = [
      node("Shape", ["x"], ["s"], "node_Shape_0", [
        ["pkg.torch.onnx.name_scopes", `['${hook}', 'sym_size_int_0']`],
      ]),
      node("Squeeze", ["s"], ["n"], "node_sym_size_int_0", [
        ["namespace", `${hook}: ${hook}/sym_size_int_0: aten.sym_size.int`],
      ]),
    ];
    let prev = "x";
    for (let l = 0; l < 12; l++)
      for (let k = 0; k < 6; k++) {
        const out = `l${l}_${k}`;
        const layer = `inner.model.layers.${l}`;
        nodes.push(
          node(
            "Relu",
            [prev],
            [out],
            `node_relu_${l}_${k}`,
            scoped("inner", "inner.model", layer, `${layer}.mlp`, `relu_${l}_${k}`),
          ),
        );
        prev = out;
      }
    nodes.push(
      node("MatMul", [prev, "w"], ["y"], "node_linear", scoped("inner", "inner.lm_head", "linear")),
    );
    const s = scene(nodes, ["x"], ["y"]);
    // the size reads sit at the top, in no group
    expect(enclosingGroups(s, 0)).toEqual([]);
    expect(enclosingGroups(s, 1)).toEqual([]);
    const group = (key: string) => s.groups[s.byKey.get(key)!]!;
    expect(group("ginner/inner.model").label).toBe("model");
    // a layer and its only child merged: its own part of each path
    expect(group("ginner/inner.model/inner.model.layers.3/inner.model.layers.3.mlp").label).toBe(
      "layers.3/mlp",
    );
    // the wrappers (73 of 75 nodes, 72 of 73) open by default; the 12 layers stay collapsed
    const open = openGroups(s);
    expect(open[s.byKey.get("ginner")!]).toBe(1);
    expect(open[s.byKey.get("ginner/inner.model")!]).toBe(1);
    const layers = s.groups.filter((g) => g.label.startsWith("layers."));
    expect(layers.length).toBe(12);
    for (const g of layers) expect(open[s.byKey.get(g.key)!]).toBe(0);
  });

  it("marks a group by the changes inside", () => {
    const s = scene(
      [
        node("A", ["x"], ["a"], "/p/A"),
        node("B", ["a"], ["b"], "/p/B"),
        node("C", ["b"], ["y"], "/q/C"),
        node("D", ["y"], ["z"], "/q/D"),
      ],
      ["x"],
      ["z"],
    );
    expect(
      groupMark(
        s,
        "gp",
        new Map([
          [0, "added"],
          [1, "added"],
        ]),
      ),
    ).toBe("added");
    expect(groupMark(s, "gp", new Map([[0, "removed"]]))).toBe("changed");
    expect(groupMark(s, "gq", new Map([[0, "removed"]]))).toBeUndefined();
  });

  it("sets constants apart: Constant nodes and initializers", () => {
    const s = scene(
      [
        node("Constant", [], ["k"]),
        node("Add", ["x", "k"], ["a"]),
        node("Mul", ["a", "w"], ["y"]),
        node("Constant", [], ["out2"]),
      ],
      ["x", "w"],
      ["y", "out2"],
      { initializers: ["w"] },
    );
    expect([...s.constant]).toEqual([1, 0, 0, 0]); // a Constant that is a graph output stays a node
    expect(s.constants.has("k") && s.constants.has("w")).toBe(true);
    expect(s.inputs.map((v) => v.initializer)).toEqual([false, true]);
  });
});
