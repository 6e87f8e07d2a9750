// Decoding a model and encoding it again gives back its very bytes: on every model of
// libonnx-testdata, the backend tests and examples/, and on models that spell out defaults (an
// opset import without a domain, a tensor with an empty name, a node with an empty domain). And
// what the decoder shares between nodes (repeated attributes, attribute lists) reads back as
// values equal to their own.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeModel, encodeModel } from "../../src/io/codec.js";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { LIBONNX_TESTDATA, libonnxPresent } from "../helpers/data.js";

const ROOTS = [
  LIBONNX_TESTDATA,
  new URL("../data/onnx-node-tests/", import.meta.url).pathname,
  new URL("../../examples/", import.meta.url).pathname,
];

function* onnxFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) yield* onnxFiles(p);
    else if (p.endsWith(".onnx")) yield p;
  }
}

describe("byte identity of decode → encode", () => {
  for (const root of ROOTS)
    it.skipIf(
      root === LIBONNX_TESTDATA ? !libonnxPresent("byte identity on libonnx-testdata") : false,
    )(`re-encodes every model under ${root} to its bytes`, () => {
      const changed: string[] = [];
      let n = 0;
      for (const f of onnxFiles(root)) {
        const bytes = readFileSync(f);
        if (!Buffer.from(encodeModel(decodeModel(bytes))).equals(bytes)) changed.push(f);
        n++;
      }
      expect(n).toBeGreaterThan(0);
      expect(changed).toEqual([]);
    });

  it("writes back an opset import without a domain field and a tensor named '' as read", () => {
    // ModelProto { ir_version 7, graph { node { op_type "Constant", attribute { name "value",
    // t { data_type 1, name "" } type TENSOR } } }, opset_import { version 13 } }: by hand.
    const attrBody = [0x0a, 5, ...Buffer.from("value"), 0x2a, 4, 0x10, 1, 0x42, 0, 0xa0, 1, 4];
    const nodeBody = [0x22, 8, ...Buffer.from("Constant"), 0x2a, attrBody.length, ...attrBody];
    const graphBody = [0x0a, nodeBody.length, ...nodeBody];
    const bytes = Uint8Array.from([
      0x08,
      7,
      0x3a,
      graphBody.length,
      ...graphBody,
      0x42,
      2,
      0x10,
      13,
    ]);
    const m = decodeModel(bytes);
    expect(m.opsetImports).toEqual([{ domain: "", version: 13 }]);
    expect(Buffer.from(encodeModel(m)).equals(Buffer.from(bytes))).toBe(true);
  });

  it("shares repeated attributes between nodes as equal values, and encodes them per node", () => {
    const nodes = [0, 1, 2].map((i) =>
      node("ReduceSum", [i ? `v${i - 1}` : "x"], [`v${i}`], { axes: [1], keepdims: 1 }),
    );
    nodes.push(node("ReduceSum", ["v2"], ["y"], { axes: [2], keepdims: 1 }));
    const g = graph({ nodes, inputs: [valueInfo("x", "float", [2, 3, 4])], outputs: [] });
    const bytes = encodeModel(model(g, 12));
    const back = decodeModel(bytes);
    expect(back.graph.nodes.map((n) => n.attributes)).toEqual(nodes.map((n) => n.attributes));
    expect(back.graph.nodes[1]!.attributes).toBe(back.graph.nodes[0]!.attributes);
    expect(back.graph.nodes[3]!.attributes[0]).not.toBe(back.graph.nodes[0]!.attributes[0]);
    expect(back.graph.nodes[3]!.attributes[1]).toBe(back.graph.nodes[0]!.attributes[1]);
    expect(Buffer.from(encodeModel(back)).equals(Buffer.from(bytes))).toBe(true);
  });
});
