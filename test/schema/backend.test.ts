// ONNX's own backend node tests for the version-18 Reduce functions, with the node replaced by
// the body functionBody() builds for it, run in onnxruntime-node against the expected outputs.

import * as ort from "onnxruntime-node";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodeTensorProto } from "../../src/interp/value-proto.js";
import type { RTensor } from "../../src/interp/types.js";
import { encodeModel, loadModel } from "../../src/io/files.js";
import { DataType, type Model, type Node } from "../../src/ir/types.js";
import { SchemaRegistry, functionBody, hasFunctionBody } from "../../src/schema/index.js";

const root = fileURLToPath(new URL("../data/onnx-node-tests/", import.meta.url));
const reg = SchemaRegistry.default();
const pattern = /^test_reduce_(log_sum|log_sum_exp|l1|l2|sum_square)_/;
const dirs = readdirSync(root)
  .filter((d) => pattern.test(d) && !d.endsWith("_expanded"))
  .sort();

/** Replaces the model's one node by the body of its op, formals renamed to the node's values. */
function expand(m: Model): { model: Model; op: string } {
  const [call] = m.graph.nodes as [Node];
  const opset = m.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")!.version;
  const v = reg.resolve(call.domain, call.opType, opset);
  expect(hasFunctionBody(v)).toBe(true);
  const typeOf = (name: string) => m.graph.inputs.find((i) => i.name === name)?.type;
  const body = functionBody(v, {
    inputTypes: call.inputs.map(typeOf),
    attributes: call.attributes,
  });
  const rename = new Map<string, string>();
  v.inputs.forEach((f, i) => rename.set(f.name, call.inputs[i] ?? ""));
  v.outputs.forEach((f, i) => rename.set(f.name, call.outputs[i] ?? ""));
  const nodes = body.nodes.map((n) => ({
    ...n,
    inputs: n.inputs.map((x) => rename.get(x) ?? x),
    outputs: n.outputs.map((x) => rename.get(x) ?? x),
  }));
  const bodyOpset = body.opsetImports[0]!.version;
  return {
    model: {
      ...m,
      opsetImports: [{ domain: "", version: Math.max(opset, bodyOpset) }],
      graph: { ...m.graph, nodes },
    },
    op: `${v.name}-${v.since}`,
  };
}

const ORT_TYPE: Record<number, ort.Tensor.Type> = {
  [DataType.FLOAT]: "float32",
  [DataType.DOUBLE]: "float64",
  [DataType.INT32]: "int32",
  [DataType.INT64]: "int64",
};

function toOrt(t: RTensor): ort.Tensor {
  return new ort.Tensor(ORT_TYPE[t.dtype]!, t.data as Float32Array, t.shape);
}

describe("backend node tests of the Reduce functions, expanded with our bodies", () => {
  it("finds the tests", () => {
    expect(dirs.length).toBeGreaterThanOrEqual(40);
  });

  it.each(dirs)("%s", async (dir) => {
    const m = loadModel(join(root, dir, "model.onnx"));
    const { model } = expand(m);
    const set = join(root, dir, "test_data_set_0");
    const feeds: Record<string, ort.Tensor> = {};
    m.graph.inputs.forEach((input, i) => {
      feeds[input.name] = toOrt(decodeTensorProto(readFileSync(join(set, `input_${i}.pb`))).tensor);
    });
    const want = decodeTensorProto(readFileSync(join(set, "output_0.pb"))).tensor;
    const session = await ort.InferenceSession.create(encodeModel(model));
    const got = (await session.run(feeds))[m.graph.outputs[0]!.name]!;
    await session.release();
    expect(got.dims).toEqual(want.shape);
    const g = Array.from(got.data as Float32Array);
    const w = Array.from(want.data as Float32Array, Number);
    g.forEach((x, i) => {
      const y = w[i]!;
      if (!Number.isFinite(y)) expect(x).toBe(y);
      else
        expect(Math.abs(x - y), `[${i}] ${x} vs ${y}`).toBeLessThanOrEqual(
          1e-5 * Math.max(1, Math.abs(y)),
        );
    });
  });
});
