// GroupQueryAttention (com.microsoft) with a past key/value cache, expanded to its body
// (src/schema/builders/contrib-attention.ts) and run on onnxruntime-node and in the interpreter
// against onnxruntime's own kernel on the original: each batch row's new keys and values land at
// its own run-time position (seqlens_k[b] + 1 - S), the cache slots past it are not read (inf and
// NaN there change nothing), present spans max(total_sequence_length, past length) rows with 0
// after the written ones; decode, a cache longer than the total, a subsequent prompt (S > 1), a
// first prompt (S = total_sequence_length: the past unread), a local window with softcap, separate
// Q/K/V without rotary, and float16 (bit for bit).

import { describe, expect, it } from "vitest";
import { expand, randomInputs } from "../../src/app/index.js";
import { run } from "../../src/interp/executor.js";
import { fromFloat64, toFloat64 } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, type Model } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { runOrt } from "../helpers/ort.js";

interface Case {
  B: number;
  S: number;
  /** The past buffer's length. */
  P: number;
  total: number;
  N: number;
  Nkv: number;
  H: number;
  packed?: boolean;
  rotary?: boolean;
  attrs?: string;
  half?: boolean;
  /** seqlens_k for each trial: one value a batch row. */
  seqlens: number[][];
}

function gqaModel(c: Case): Model {
  const t = c.half ? "float16" : "float";
  const { B, S, P, N, Nkv, H } = c;
  const T = Math.max(c.total, P);
  const qkv =
    c.packed === false
      ? `${t}[${B},${S},${N * H}] q, ${t}[${B},${S},${Nkv * H}] k, ${t}[${B},${S},${Nkv * H}] v`
      : `${t}[${B},${S},${(N + 2 * Nkv) * H}] q`;
  const rot = c.rotary === false ? "" : `, ${t}[32,${H / 2}] cos, ${t}[32,${H / 2}] sin`;
  const args = [
    "q",
    c.packed === false ? "k, v" : ", ",
    "pk, pv, s, total",
    ...(c.rotary === false ? [] : ["cos, sin"]),
  ].join(", ");
  const attrs = [
    `num_heads = ${N}`,
    `kv_num_heads = ${Nkv}`,
    ...(c.rotary === false ? [] : ["do_rotary = 1"]),
    ...(c.attrs ? [c.attrs] : []),
  ].join(", ");
  return parseModelText(`<ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
g (${qkv}, ${t}[${B},${Nkv},${P},${H}] pk, ${t}[${B},${Nkv},${P},${H}] pv, int32[${B}] s${rot})
  => (${t}[${B},${S},${N * H}] y, ${t}[${B},${Nkv},${T},${H}] present_k, ${t}[${B},${Nkv},${T},${H}] present_v) {
  total = Constant <value = int32 {${c.total}}> ()
  y, present_k, present_v = com.microsoft.GroupQueryAttention <${attrs}> (${args})
}`);
}

/** Seeded inputs with the given seqlens_k, and inf / NaN in the cache slots no row reads. */
function inputsOf(m: Model, c: Case, seed: number, seqlens: number[]): Record<string, RTensor> {
  const x = randomInputs(m, seed) as Record<string, RTensor>;
  x.s = { dtype: DataType.INT32, shape: [c.B], data: Int32Array.from(seqlens) };
  const read = seqlens.map((l) => (c.S === c.total ? 0 : l + 1 - c.S));
  for (const name of ["pk", "pv"]) {
    const v = toFloat64(x[name]!);
    for (let i = 0; i < v.length; i++) {
      const [b, t] = [Math.floor(i / (c.Nkv * c.P * c.H)), Math.floor(i / c.H) % c.P];
      if (t >= read[b]!) v[i] = [NaN, Infinity, -Infinity][i % 3]!;
    }
    x[name] = fromFloat64(x[name]!.dtype, x[name]!.shape, v);
  }
  return x;
}

/** Norm-wise relative difference over finite values; non-finite ones must match exactly. */
function normwise(want: RTensor, got: RTensor): number {
  const [a, b] = [toFloat64(want), toFloat64(got)];
  expect(got.shape).toEqual(want.shape);
  let [num, den] = [0, 0];
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i]!) || !Number.isFinite(b[i]!)) {
      expect(Object.is(a[i], b[i]) || (a[i] === 0 && b[i] === 0), `element ${i}`).toBe(true);
      continue;
    }
    [num, den] = [num + (a[i]! - b[i]!) ** 2, den + a[i]! ** 2];
  }
  return Math.sqrt(num / (den || 1));
}

/** A decode step: 2 rows, 1 new token, 7 cached, 8 in all; 4 query heads over 2 K/V heads. */
const DECODE = { B: 2, S: 1, P: 7, total: 8, N: 4, Nkv: 2, H: 16 };

const CASES: [string, Case][] = [
  [
    "decode, per-row cache positions",
    {
      ...DECODE,
      seqlens: [
        [7, 7],
        [4, 7],
        [0, 5],
      ],
    },
  ],
  [
    "decode into a cache longer than the total",
    {
      ...DECODE,
      P: 16,
      seqlens: [
        [7, 2],
        [3, 5],
      ],
    },
  ],
  [
    "decode with the cache growing by one",
    { ...DECODE, B: 3, P: 16, total: 17, Nkv: 4, seqlens: [[16, 8, 12]] },
  ],
  ["a subsequent prompt", { ...DECODE, B: 1, S: 3, total: 10, Nkv: 1, seqlens: [[9], [5]] }],
  [
    "a first prompt beside a past (unread)",
    {
      ...DECODE,
      S: 4,
      P: 8,
      total: 4,
      N: 2,
      seqlens: [
        [3, 3],
        [1, 3],
      ],
    },
  ],
  [
    "a local window and softcap",
    {
      ...DECODE,
      P: 11,
      total: 12,
      N: 2,
      Nkv: 1,
      attrs: "local_window_size = 3, softcap = 2.0",
      seqlens: [
        [11, 6],
        [1, 0],
      ],
    },
  ],
  ["separate Q, K, V, no rotary", { ...DECODE, packed: false, rotary: false, seqlens: [[2, 6]] }],
  [
    "float16",
    {
      ...DECODE,
      half: true,
      seqlens: [
        [5, 7],
        [3, 1],
      ],
    },
  ],
];

describe("GroupQueryAttention with a past cache, expanded, against onnxruntime's kernel", () => {
  it.each(CASES)("%s", async (_, c) => {
    const m = gqaModel(c);
    const r = expand(m);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.model.graph.nodes.filter((n) => n.domain === "com.microsoft")).toEqual([]);
    let seed = 1;
    for (const seqlens of c.seqlens) {
      const inputs = inputsOf(m, c, seed++, seqlens);
      const want = await runOrt(m, inputs);
      for (const [how, got] of [
        ["onnxruntime", await runOrt(r.model, inputs)],
        ["interpreter", run(r.model, inputs)],
      ] as const) {
        for (const k of Object.keys(want)) {
          const e = normwise(want[k]!, got[k]!);
          // float16: the same roundings as the kernel's; V moved as it is; K rotated
          const bound = c.half || k === "present_v" ? 0 : k === "present_k" ? 1e-7 : 1e-6;
          expect(e, `${how} ${k} seqlens ${seqlens}`).toBeLessThanOrEqual(bound);
        }
      }
    }
  });
});
