// fold-output-identity: an Identity writing a graph output is removed and the value it copied
// renamed to the output, in the main graph, in If and Loop bodies and in a local function's body;
// one copying a graph input, a value from outside its subgraph or another output is kept. Each
// result checked against the input model on onnxruntime (and in the interpreter by expectPass).

import { describe, expect, it } from "vitest";

import { DataType } from "../../src/ir/types.js";
import { nodeGraphs } from "../../src/ir/visit.js";
import { foldOutputIdentity, runPass } from "../../src/passes/index.js";
import { parseModelText } from "../../src/text/parse.js";
import { random, runOrt } from "../helpers/ort.js";
import { expectPass } from "../helpers/pass.js";

describe("fold-output-identity", () => {
  it("renames the value an output Identity copies to the output, and keeps the ones it must", () => {
    const r = expectPass(
      foldOutputIdentity(),
      `<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[2] z, float[2] w, float[2] v) {
  t = Abs (x)
  u = Neg (t)
  y = Identity (t)
  z = Identity (x)
  w = Identity (y)
  v = Identity (t)
}`,
      `<ir_version: 9, opset_import: ["" : 18]>
g (float[2] x) => (float[2] y, float[2] z, float[2] w, float[2] v) {
  y = Abs (x)
  u = Neg (y)
  z = Identity (x)
  w = Identity (y)
  v = Identity (y)
}`,
    );
    expect(r.notes.map((n) => n.message)).toEqual([
      "folded 1 Identity node into the graph outputs they wrote",
    ]);
  });

  it("reaches If and Loop bodies and local functions, and agrees with onnxruntime", async () => {
    const m = parseModelText(`<ir_version: 9, opset_import: ["" : 18, "local" : 1]>
g (float[2] x, bool c, int64 n) => (float[2] y, float[2] s) {
  y = If (c) <
    then_branch = t () => (float[2] a) { p = Mul (x, x)
      a = Identity (p) },
    else_branch = e () => (float[2] b) { b = Identity (x) }>
  cond = Constant <value = bool {1}> ()
  s = Loop (n, cond, x) <
    body = body (int64 i, bool ci, float[2] acc) => (bool co, float[2] acc2) {
      co = Identity (ci)
      f = local.F (acc)
      acc2 = Identity (f)
    }>
}
<domain: "local", opset_import: ["" : 18]>
F (a) => (b) {
  h = Sin (a)
  b = Identity (h)
}`);
    const r = runPass(foldOutputIdentity(), m);
    if (!r.ok) throw new Error(r.notes.map((n) => n.message).join("; "));
    const out = r.model;
    const [then, other] = nodeGraphs(out.graph.nodes[0]!);
    expect(then!.nodes.map((n) => `${n.opType}:${n.outputs}`)).toEqual(["Mul:a"]);
    // A value from outside the branch is not the branch's to rename.
    expect(other!.nodes.map((n) => n.opType)).toEqual(["Identity"]);
    const body = nodeGraphs(out.graph.nodes.find((n) => n.opType === "Loop")!)[0]!;
    // The carried condition is a body input: its Identity stays; the call writes acc2 itself.
    expect(body.nodes.map((n) => `${n.opType}:${n.outputs}`)).toEqual(["Identity:co", "F:acc2"]);
    expect(out.functions[0]!.nodes.map((n) => `${n.opType}:${n.outputs}`)).toEqual(["Sin:b"]);
    expect(r.notes[0]!.message).toBe("folded 3 Identity nodes into the graph outputs they wrote");
    for (const c of [true, false]) {
      const feeds = {
        x: random(DataType.FLOAT, [2], 3),
        c: { dtype: DataType.BOOL, shape: [], data: Uint8Array.of(c ? 1 : 0) },
        n: { dtype: DataType.INT64, shape: [], data: BigInt64Array.of(3n) },
      };
      const [a, b] = [await runOrt(m, feeds), await runOrt(out, feeds)];
      for (const k of ["y", "s"])
        expect(Array.from(b[k]!.data as Float32Array)).toEqual(
          Array.from(a[k]!.data as Float32Array),
        );
    }
  });
});
