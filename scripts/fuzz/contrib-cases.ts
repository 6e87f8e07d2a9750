// The contrib family of the hostile fuzz campaign: one onnxruntime contrib op (Attention,
// GroupQueryAttention, DynamicQuantizeLSTM, MatMulNBits, QLinearConv) with random attributes and
// input shapes, small enough to run, checked, run on random inputs or expanded.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Random } from "../../src/interp/random.js";
import type { HostileCase } from "./hostile.js";

const HEADER = `<ir_version: 9, opset_import: ["" : 21, "com.microsoft" : 1]>`;

function small(rng: Random): number {
  return rng.pick([-1, 0, 1, 2, 3, 4, 8]);
}

function attention(rng: Random): string {
  const hidden = rng.pick([4, 6, 8]);
  const heads = rng.pick([-2, 0, 1, 2, 3, 4, 5]);
  const w = rng.pick([3 * hidden, 3 * hidden + 1, 10, hidden]);
  return `${HEADER}
g (float[2,3,${hidden}] x, float[${hidden},${w}] w, float[${w}] b) => (float[?,?,?] y) {
  y = com.microsoft.Attention <num_heads = ${heads}${rng.chance(0.3) ? `, qkv_hidden_sizes = [${small(rng)}, ${small(rng)}, ${small(rng)}]` : ""}${rng.chance(0.2) ? `, unidirectional = ${small(rng)}` : ""}> (x, w, b)
}`;
}

function gqa(rng: Random): string {
  const heads = rng.pick([-1, 0, 1, 2, 3, 4]);
  const kv = rng.pick([-1, 0, 1, 2, 3, 4, 5]);
  const hd = rng.pick([2, 4]);
  const qh = Math.max(1, heads) * hd;
  const kvh = Math.max(1, kv) * hd;
  const seqlens = rng.pick(["[-7]", "[0]", "[1]", "[2]", "[99]"]);
  return `${HEADER}
g (float[1,2,${qh}] q, float[1,2,${kvh}] k, float[1,2,${kvh}] v) => (float[?,?,?] y) {
  s = Constant <value = int32[1] ${seqlens.replace("[", "{").replace("]", "}")}> ()
  t = Constant <value = int32 {${rng.pick([-1, 0, 2, 3])}}> ()
  y = com.microsoft.GroupQueryAttention <num_heads = ${heads}, kv_num_heads = ${kv}> (q, k, v, , , s, t)
}`;
}

function dqlstm(rng: Random): string {
  const hidden = rng.pick([-1, 0, 1, 2, 3]);
  const h = Math.max(1, hidden);
  const dir = rng.pick(["forward", "reverse", "bidirectional", "sideways", ""]);
  const d = dir === "bidirectional" ? 2 : 1;
  return `${HEADER}
g (float[2,1,3] x) => (float[?,?,?,?] y) {
  w = Constant <value = int8[${d},3,${4 * h}] {${Array(d * 3 * 4 * h)
    .fill(1)
    .join(",")}}> ()
  r = Constant <value = int8[${d},${h},${4 * h}] {${Array(d * h * 4 * h)
    .fill(1)
    .join(",")}}> ()
  ws = Constant <value = float[${d}] {${Array(d).fill(0.1).join(",")}}> ()
  wz = Constant <value = int8[${d}] {${Array(d).fill(0).join(",")}}> ()
  y = com.microsoft.DynamicQuantizeLSTM <hidden_size = ${hidden}, direction = "${dir}"> (x, w, r, , , , , , ws, wz, ws, wz)
}`;
}

function matmulNBits(rng: Random): string {
  const K = rng.pick([4, 8, 16]);
  const N = rng.pick([1, 2, 3]);
  const block = rng.pick([0, 8, 16, 32]);
  const bits = rng.pick([0, 2, 4, 8]);
  const b = Math.max(1, block);
  const blocks = Math.ceil(K / b);
  const blob = Math.ceil((b * Math.max(1, bits)) / 8);
  const zp = rng.pick([
    0,
    1,
    Math.ceil((blocks * 4) / 8),
    N * Math.ceil((blocks * 4) / 8),
    N * blocks,
  ]);
  return `${HEADER}
g (float[2,${K}] a) => (float[?,?] y) {
  b = Constant <value = uint8[${N},${blocks},${blob}] {${Array(N * blocks * blob)
    .fill(17)
    .join(",")}}> ()
  s = Constant <value = float[${N * blocks}] {${Array(N * blocks)
    .fill(0.5)
    .join(",")}}> ()
  z = Constant <value = uint8[${Math.max(1, zp)}] {${Array(Math.max(1, zp)).fill(8).join(",")}}> ()
  y = com.microsoft.MatMulNBits <K = ${rng.pick([K, K + 1, 0])}, N = ${rng.pick([N, N + 1, 0])}, block_size = ${block}, bits = ${bits}> (a, b, s${rng.chance(0.6) ? ", z" : ""})
}`;
}

function qlinearConv(rng: Random): string {
  const M = rng.pick([1, 2]);
  const zps = rng.pick([1, M, 3]);
  return `${HEADER}
g (uint8[1,1,3,3] x) => (uint8[?,?,?,?] y) {
  xs = Constant <value = float {0.1}> ()
  xz = Constant <value = uint8 {3}> ()
  w = Constant <value = uint8[${M},1,2,2] {${Array(M * 4)
    .fill(5)
    .join(",")}}> ()
  ws = Constant <value = float[${rng.pick([1, M, 3])}] {${Array(3).fill(0.2).join(",")}}> ()
  wz = Constant <value = uint8[${zps}] {${Array(zps).fill(1).join(",")}}> ()
  ys = Constant <value = float {0.3}> ()
  yz = Constant <value = uint8 {2}> ()
  y = com.microsoft.QLinearConv <group = ${rng.pick([0, 1, 2])}> (x, xs, xz, w, ws, wz, ys, yz)
}`;
}

export function contribCase(rng: Random, dir: string): HostileCase {
  const op = rng.pick([
    "Attention",
    "GroupQueryAttention",
    "DynamicQuantizeLSTM",
    "MatMulNBits",
    "QLinearConv",
  ]);
  let text =
    op === "Attention"
      ? attention(rng)
      : op === "GroupQueryAttention"
        ? gqa(rng)
        : op === "DynamicQuantizeLSTM"
          ? dqlstm(rng)
          : op === "MatMulNBits"
            ? matmulNBits(rng)
            : qlinearConv(rng);
  // Broken Constant counts (the float[1] ws of a 3-entry list) are part of the game: fix none.
  text = text.replace(/float\[(\d+)\] \{([^}]*)\}/g, (_m, n: string, body: string) => {
    const vals = body.split(",");
    return `float[${n}] {${vals.slice(0, Number(n)).join(",")}}`;
  });
  const file = join(dir, "case.onnxtxt");
  writeFileSync(file, text);
  const command = rng.pick(["check", "run", "run", "expand", "lower"]);
  const out = join(dir, "out.onnx");
  const args =
    command === "check"
      ? ["check", file]
      : command === "run"
        ? ["run", file, "--random", "--max-memory", "256M"]
        : command === "expand"
          ? ["expand", file, "-o", out, "--force"]
          : ["lower", file, "--target", "ai.onnx-21", "-o", out, "--force"];
  return { kind: `contrib ${op} (${command})`, file, args };
}
