// The kernels of the function ops against onnxruntime-node 1.30, at the opsets it accepts
// (≤ 26): Gelu-20, Mish-18/22, Swish-24, GroupNormalization-18/21, RMSNormalization-23,
// RotaryEmbedding-23, Attention-23/24/25, AffineGrid-20, CenterCropPad-18. onnxruntime has no
// double Gelu (no double Erf kernel) and no bfloat16 tensors in its JavaScript API.

import { describe, it } from "vitest";
import type { AttrInput } from "../../src/ir/builder.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, graph, model, node, T, valueInfo } from "../helpers/interp.js";
import { compareWithOrt, random } from "../helpers/ort.js";

const F = DataType.FLOAT;
const D = DataType.DOUBLE;
const H = DataType.FLOAT16;
const TOL: Record<number, { rtol: number; atol: number }> = {
  [F]: { rtol: 1e-5, atol: 1e-6 },
  [D]: { rtol: 1e-12, atol: 1e-13 },
  // onnxruntime computes float16 in float16 steps or float32; ours rounds once.
  [H]: { rtol: 4e-3, atol: 4e-3 },
};

/** One node whose inputs are the graph inputs named in `names` ("" skips an optional input). */
async function one(
  op: string,
  opset: number,
  feeds: [string, RTensor][],
  attrs: Record<string, AttrInput> = {},
  outputs = 1,
  tol = TOL[feeds[0]![1].dtype]!,
): Promise<void> {
  const outs = Array.from({ length: outputs }, (_, i) => `y${i}`);
  const g = graph({
    nodes: [
      node(
        op,
        feeds.map(([n]) => n),
        outs,
        attrs,
      ),
    ],
    inputs: feeds.filter(([n]) => n !== "").map(([n, t]) => valueInfo(n, t.dtype, t.shape)),
    outputs: outs.filter((o) => o !== "").map((o) => valueInfo(o)),
  });
  const m = model(g, opset, 10);
  try {
    await compareWithOrt(m, Object.fromEntries(feeds.filter(([n]) => n !== "")), tol);
  } catch (e) {
    throw new Error(`${op}-${opset} ${feeds[0]![1].dtype} ${JSON.stringify(attrs)}: ${String(e)}`);
  }
}

describe("activation function ops agree with onnxruntime-node", () => {
  it("Gelu-20 (exact and tanh) for float and float16", async () => {
    for (const dtype of [F, H])
      for (const approximate of ["none", "tanh"]) {
        const x = random(dtype, [4, 25], 3, -8, 8);
        await one("Gelu", 20, [["x", x]], { approximate });
      }
  });
  it("Mish-18 and Mish-22 for float, double and float16", async () => {
    // onnxruntime has no double Softplus-22, which its Mish-22 is inlined to.
    for (const [opset, dtypes] of [
      [18, [F, D, H]],
      [22, [F, H]],
    ] as const)
      for (const dtype of dtypes)
        await one("Mish", opset, [["x", random(dtype, [60], 7, -30, 30)]]);
  });
  it("Swish-24 with default and explicit alpha", async () => {
    for (const dtype of [F, D, H]) {
      await one("Swish", 24, [["x", random(dtype, [40], 11, -12, 12)]]);
      await one("Swish", 24, [["x", random(dtype, [40], 12, -12, 12)]], { alpha: 0.4 });
    }
  });
});

describe("normalisation function ops agree with onnxruntime-node", () => {
  it("GroupNormalization-21 (per-channel scale) for float, double, float16", async () => {
    for (const dtype of [F, D, H])
      for (const [groups, eps] of [
        [2, undefined],
        [3, 0.01],
        [6, undefined],
        [1, undefined],
      ] as const) {
        const attrs: Record<string, AttrInput> = { num_groups: groups };
        if (eps !== undefined) attrs.epsilon = eps;
        await one(
          "GroupNormalization",
          21,
          [
            ["x", random(dtype, [2, 6, 3, 2], 21 + groups)],
            ["s", random(dtype, [6], 22)],
            ["b", random(dtype, [6], 23)],
          ],
          attrs,
          1,
          // stash_type 1 (the default) lets onnxruntime compute stage one of double inputs in
          // float32; the kernel stays in float64, so double is compared at float32 tolerance.
          dtype === D ? TOL[F] : TOL[dtype],
        );
      }
  });
  it("GroupNormalization-21 with stash_type double agrees at double precision", async () => {
    await one(
      "GroupNormalization",
      21,
      [
        ["x", random(D, [2, 6, 3, 2], 27)],
        ["s", random(D, [6], 28)],
        ["b", random(D, [6], 29)],
      ],
      { num_groups: 3, stash_type: DataType.DOUBLE },
    );
  });
  it("GroupNormalization-18 (per-group scale) for float", async () => {
    await one(
      "GroupNormalization",
      18,
      [
        ["x", random(F, [2, 4, 5], 24)],
        ["s", random(F, [2], 25)],
        ["b", random(F, [2], 26)],
      ],
      { num_groups: 2 },
    );
  });
  it("RMSNormalization-23 over the last axes, with broadcast scale", async () => {
    for (const dtype of [F, D, H]) {
      await one("RMSNormalization", 23, [
        ["x", random(dtype, [3, 8], 31)],
        ["s", random(dtype, [8], 32)],
      ]);
      await one(
        "RMSNormalization",
        23,
        [
          ["x", random(dtype, [2, 3, 4], 33)],
          ["s", random(dtype, [3, 4], 34)],
        ],
        { axis: 1, epsilon: 0.1 },
      );
      await one(
        "RMSNormalization",
        23,
        [
          ["x", random(dtype, [2, 3, 4], 35)],
          ["s", random(dtype, [1, 4], 36)],
        ],
        { axis: -2 },
      );
    }
  });
});

describe("attention function ops agree with onnxruntime-node", () => {
  it("RotaryEmbedding-23: 4-D and 3-D, position ids or not, interleaved, partial", async () => {
    for (const dtype of [F, H])
      for (const interleaved of [0, 1]) {
        // 4-D (B, H, S, D) with position ids into 2-D caches.
        await one(
          "RotaryEmbedding",
          23,
          [
            ["x", random(dtype, [2, 3, 4, 8], 41)],
            ["c", random(dtype, [10, 4], 42, -1, 1)],
            ["s", random(dtype, [10, 4], 43, -1, 1)],
            ["p", T(DataType.INT64, [2, 4], [0, 1, 2, 3, 9, 4, 7, 0])],
          ],
          { interleaved },
        );
        // 3-D (B, S, H·D) with num_heads, caches per token, partial rotation.
        await one(
          "RotaryEmbedding",
          23,
          [
            ["x", random(dtype, [2, 3, 12], 44)],
            ["c", random(dtype, [2, 3, 2], 45, -1, 1)],
            ["s", random(dtype, [2, 3, 2], 46, -1, 1)],
          ],
          { interleaved, num_heads: 2, rotary_embedding_dim: 4 },
        );
      }
  });

  const qkv = (dtype: number, seed: number, q: number[], k: number[], v: number[]) =>
    [
      ["q", random(dtype, q, seed)],
      ["k", random(dtype, k, seed + 1)],
      ["v", random(dtype, v, seed + 2)],
    ] as [string, RTensor][];

  it("Attention-23: 4-D MHA and GQA, scale, softcap, causal", async () => {
    // onnxruntime takes the square root of the scale in float32 for double inputs too (as the
    // function body does), so double agrees to about 1e-7 only.
    for (const dtype of [F, D, H]) {
      const tol = dtype === D ? { rtol: 2e-6, atol: 1e-7 } : TOL[dtype];
      const cases: [number[], number[], number[], Record<string, AttrInput>][] = [
        [[2, 4, 3, 8], [2, 4, 5, 8], [2, 4, 5, 6], {}],
        [[2, 4, 3, 8], [2, 2, 5, 8], [2, 2, 5, 6], { scale: 0.3, softcap: 2.5 }],
        [[1, 2, 4, 4], [1, 2, 4, 4], [1, 2, 4, 4], { is_causal: 1 }],
      ];
      for (const [i, [qs, ks, vs, attrs]] of cases.entries())
        await one("Attention", 23, qkv(dtype, 51 + 3 * i, qs, ks, vs), attrs, 1, tol);
    }
  });
  it("Attention-23: 3-D inputs with head counts", async () => {
    for (const dtype of [F, H])
      await one("Attention", 23, qkv(dtype, 61, [2, 3, 8], [2, 5, 4], [2, 5, 6]), {
        q_num_heads: 2,
        kv_num_heads: 1,
      });
  });
  it("Attention-23: boolean and float masks, including a shorter one", async () => {
    const [qs, ks] = [
      [1, 2, 3, 4],
      [1, 2, 5, 4],
    ];
    const boolMask = T(DataType.BOOL, [3, 5], [1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 1]);
    await one("Attention", 23, [...qkv(F, 71, qs, ks, ks), ["m", boolMask]]);
    await one("Attention", 23, [...qkv(F, 74, qs, ks, ks), ["m", random(F, [2, 3, 5], 77)]]);
    await one("Attention", 23, [...qkv(F, 80, qs, ks, ks), ["m", boolMask]], { is_causal: 1 });
  });
  it("Attention-23: past key/value, present outputs, causal with offset", async () => {
    for (const causal of [0, 1])
      await one(
        "Attention",
        23,
        [
          ...qkv(F, 81, [1, 2, 2, 4], [1, 2, 2, 4], [1, 2, 2, 3]),
          ["", random(F, [1], 0)],
          ["pk", random(F, [1, 2, 3, 4], 84)],
          ["pv", random(F, [1, 2, 3, 3], 85)],
        ],
        { is_causal: causal },
        3,
      );
  });
  it("Attention-23: qk_matmul_output in each mode", async () => {
    for (const mode of [0, 1, 2, 3])
      await one(
        "Attention",
        23,
        [...qkv(F, 91, [1, 2, 3, 4], [1, 2, 5, 4], [1, 2, 5, 4]), ["m", random(F, [3, 5], 94)]],
        { qk_matmul_output_mode: mode, softcap: 1.5 },
        4,
      );
  });
  it("Attention-24 and -25 without the new inputs agree as well", async () => {
    for (const opset of [24, 25])
      await one("Attention", opset, qkv(F, 101, [2, 2, 3, 4], [2, 2, 6, 4], [2, 2, 6, 4]), {
        is_causal: 1,
      });
  });
});

describe("Attention-24 with its new input", () => {
  const qkv4 = (seed: number, sq: number, skv: number) =>
    [
      ["q", random(F, [2, 2, sq, 4], seed)],
      ["k", random(F, [2, 2, skv, 4], seed + 1)],
      ["v", random(F, [2, 2, skv, 4], seed + 2)],
    ] as [string, RTensor][];
  it("Attention-24: nonpad_kv_seqlen, with and without is_causal", async () => {
    for (const causal of [0, 1])
      await one(
        "Attention",
        24,
        [
          ...qkv4(131, 3, 6),
          ["", random(F, [1], 0)],
          ["", random(F, [1], 0)],
          ["", random(F, [1], 0)],
          ["n", T(DataType.INT64, [2], [4, 6])],
        ],
        { is_causal: causal },
      );
  });
  // onnxruntime 1.30's Attention-25 does not know left_window_size/right_window_size yet:
  // the windows are tested by hand in fn-ops.test.ts.
});

describe("geometry function ops agree with onnxruntime-node", () => {
  it("AffineGrid-20: 2-D and 3-D, align_corners 0 and 1", async () => {
    for (const dtype of [F, D])
      for (const align of [0, 1]) {
        await one(
          "AffineGrid",
          20,
          [
            ["t", random(dtype, [2, 2, 3], 111, -2, 2)],
            ["s", T(DataType.INT64, [4], [2, 3, 4, 5])],
          ],
          { align_corners: align },
        );
        await one(
          "AffineGrid",
          20,
          [
            ["t", random(dtype, [1, 3, 4], 112, -2, 2)],
            ["s", T(DataType.INT64, [5], [1, 1, 2, 3, 4])],
          ],
          { align_corners: align },
        );
      }
  });
  it("CenterCropPad-18: crop, pad, odd differences, chosen axes, integer data", async () => {
    for (const dtype of [F, DataType.INT64, DataType.INT32]) {
      const x = random(dtype, [5, 6, 3], 121, -50, 50);
      await one("CenterCropPad", 18, [
        ["x", x],
        ["s", T(DataType.INT64, [3], [3, 9, 3])],
      ]);
      await one(
        "CenterCropPad",
        18,
        [
          ["x", x],
          ["s", T(DataType.INT64, [2], [8, 2])],
        ],
        { axes: [0, -1] },
      );
    }
  });
});
