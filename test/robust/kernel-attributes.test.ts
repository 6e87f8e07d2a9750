// Attributes onnxruntime's kernels refuse (schema/contrib-attributes.ts): each case is refused by
// onnxruntime-node (at session creation or at the run) and reported by check as
// `kernel-attribute`, and run, expand and lower refuse it with the same line.

import { describe, expect, it } from "vitest";
import { runModels } from "../../src/app/runnable.js";
import { expand, lower } from "../../src/app/transform.js";
import { checkModel } from "../../src/check/index.js";
import { randomInputs } from "../../src/app/random-inputs.js";
import type { RTensor } from "../../src/interp/types.js";
import { shippedProfiles } from "../../src/targets/shipped.node.js";
import { parseModelText } from "../../src/text/parse.js";
import { runOrt } from "../helpers/ort.js";

const H = `<ir_version: 10, opset_import: ["" : 21, "com.microsoft" : 1]>`;
const ones = (n: number, v = 1) => Array(n).fill(v).join(",");

const CASES: [string, string, RegExp][] = [
  [
    "Attention num_heads 3 with hidden 8",
    `g (float[2,3,8] x, float[8,24] w, float[24] b) => (float[?,?,?] y) {
  y = com.microsoft.Attention <num_heads = 3> (x, w, b)
}`,
    /dim 2 of input 0 \(8\) is not a multiple of num_heads 3/,
  ],
  [
    "Attention num_heads 0",
    `g (float[2,3,8] x, float[8,24] w, float[24] b) => (float[?,?,?] y) {
  y = com.microsoft.Attention <num_heads = 0> (x, w, b)
}`,
    /num_heads is 0; it must be above 0/,
  ],
  [
    "Attention weights [8,10]",
    `g (float[2,3,8] x, float[8,10] w, float[10] b) => (float[?,?,?] y) {
  y = com.microsoft.Attention <num_heads = 2> (x, w, b)
}`,
    /dim 1 of input 1 is 10, not a multiple of 3/,
  ],
  [
    "GroupQueryAttention num_heads 3, kv_num_heads 2",
    `g (float[1,2,12] q, float[1,2,8] k, float[1,2,8] v) => (float[?,?,?] y) {
  s = Constant <value = int32[1] {1}> ()
  t = Constant <value = int32 {2}> ()
  y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 3, kv_num_heads = 2> (q, k, v, , , s, t)
}`,
    /num_heads 3 is not a multiple of kv_num_heads 2/,
  ],
  [
    "GroupQueryAttention kv_num_heads 4 over num_heads 2",
    `g (float[1,2,8] q, float[1,2,16] k, float[1,2,16] v) => (float[?,?,?] y) {
  s = Constant <value = int32[1] {1}> ()
  t = Constant <value = int32 {2}> ()
  y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 4> (q, k, v, , , s, t)
}`,
    /num_heads 2 is not a multiple of kv_num_heads 4/,
  ],
  [
    "DynamicQuantizeLSTM direction sideways",
    `g (float[2,1,3] x) => (float[?,?,?,?] y) {
  w = Constant <value = int8[1,3,8] {${ones(24)}}> ()
  r = Constant <value = int8[1,2,8] {${ones(16)}}> ()
  ws = Constant <value = float[1] {0.1}> ()
  wz = Constant <value = int8[1] {0}> ()
  y = com.microsoft.DynamicQuantizeLSTM <hidden_size = 2, direction = "sideways"> (x, w, r, , , , , , ws, wz, ws, wz)
}`,
    /direction is 'sideways'; it must be one of forward, reverse, bidirectional/,
  ],
  [
    "DynamicQuantizeLSTM hidden_size 0",
    `g (float[2,1,3] x) => (float[?,?,?,?] y) {
  w = Constant <value = int8[1,3,4] {${ones(12)}}> ()
  r = Constant <value = int8[1,1,4] {${ones(4)}}> ()
  ws = Constant <value = float[1] {0.1}> ()
  wz = Constant <value = int8[1] {0}> ()
  y = com.microsoft.DynamicQuantizeLSTM <hidden_size = 0> (x, w, r, , , , , , ws, wz, ws, wz)
}`,
    /hidden_size is 0; it must be above 0/,
  ],
  [
    "MatMulNBits with too few zero points",
    `g (float[2,32] a) => (float[?,?] y) {
  b = Constant <value = uint8[2,2,8] {${ones(32, 17)}}> ()
  s = Constant <value = float[4] {0.5,0.5,0.5,0.5}> ()
  z = Constant <value = uint8[1] {8}> ()
  y = com.microsoft.MatMulNBits <K = 32, N = 2, block_size = 16, bits = 4> (a, b, s, z)
}`,
    /zero points\) holds 1 values; 2 columns of 2 blocks need 2 packed bytes or 4 values/,
  ],
  [
    "QLinearConv with 3 weight zero points for 1 channel",
    `g (uint8[1,1,3,3] x) => (uint8[?,?,?,?] y) {
  xs = Constant <value = float {0.1}> ()
  xz = Constant <value = uint8 {3}> ()
  w = Constant <value = uint8[1,1,2,2] {5,5,5,5}> ()
  ws = Constant <value = float {0.2}> ()
  wz = Constant <value = uint8[3] {1,1,1}> ()
  ys = Constant <value = float {0.3}> ()
  yz = Constant <value = uint8 {2}> ()
  y = QLinearConv (x, xs, xz, w, ws, wz, ys, yz)
}`,
    /input 5 holds 3 values; it must hold 1 or 1/,
  ],
];

describe("attributes onnxruntime's kernels refuse", () => {
  const webnn = shippedProfiles().find((p) => p.name === "webnn")!;
  for (const [what, body, why] of CASES)
    it(`${what}: onnxruntime refuses it, and so do check, run, expand and lower`, async () => {
      const model = parseModelText(`${H}\n${body}`);
      const feeds = randomInputs(model, 1) as Record<string, RTensor>;
      const ort = await runOrt(model, feeds).then(
        () => "",
        (e: Error) => e.message,
      );
      if (process.env.SHOW_ORT) console.log(what, "::", ort.split("\n")[0]);
      expect(ort).not.toBe("");
      const problems = checkModel(model).problems.filter((p) => p.code === "kernel-attribute");
      expect(problems.map((p) => p.message).join("\n")).toMatch(why);
      expect(() => runModels([{ name: "m", model }], () => feeds)).toThrow(why);
      for (const r of [expand(model), lower(model, { profile: webnn })]) {
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.notes.map((n) => n.message).join("\n")).toMatch(why);
      }
    });

  it("a negative seqlens_k: check, expand and the kernel refuse it, as onnxruntime does", async () => {
    const model = parseModelText(`${H}
g (float[1,2,8] q, float[1,2,8] k, float[1,2,8] v) => (float[?,?,?] y) {
  s = Constant <value = int32[1] {-7}> ()
  t = Constant <value = int32 {2}> ()
  y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 2> (q, k, v, , , s, t)
}`);
    const feeds = randomInputs(model, 1) as Record<string, RTensor>;
    await expect(runOrt(model, feeds)).rejects.toThrow();
    expect(() => runModels([{ name: "m", model }], () => feeds)).toThrow(
      /seqlens_k\[0\] is -7; a length must be 0 or more/,
    );
    expect(
      checkModel(model)
        .problems.map((p) => p.message)
        .join("\n"),
    ).toMatch(/seqlens_k\[0\] is -7/);
    const e = expand(model);
    expect(e.ok).toBe(false);
    // Given at run time (a graph input), the kernel refuses it.
    const given = parseModelText(`${H}
g (float[1,2,8] q, float[1,2,8] k, float[1,2,8] v, int32[1] s) => (float[?,?,?] y) {
  t = Constant <value = int32 {2}> ()
  y, pk, pv = com.microsoft.GroupQueryAttention <num_heads = 2, kv_num_heads = 2> (q, k, v, , , s, t)
}`);
    const withS = { ...feeds, s: { dtype: 6, shape: [1], data: Int32Array.of(-7) } };
    expect(() => runModels([{ name: "m", model: given }], () => withS)).toThrow(
      /seqlens_k\[0\] is -7; a length must be 0 or more/,
    );
  });

  it("the same ops with attributes that fit run", async () => {
    const model = parseModelText(`${H}
g (float[2,3,8] x, float[8,24] w, float[24] b) => (float[?,?,?] y) {
  y = com.microsoft.Attention <num_heads = 2> (x, w, b)
}`);
    expect(checkModel(model).problems.filter((p) => p.code === "kernel-attribute")).toEqual([]);
    const feeds = randomInputs(model, 1) as Record<string, RTensor>;
    await runOrt(model, feeds);
    expect(runModels([{ name: "m", model }], () => feeds).outputs[0]!.y).toBeDefined();
  });
});
