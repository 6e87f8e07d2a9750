// The kernels of the function ops that onnxruntime-node cannot judge or not fully: values
// worked out by hand or from the spec's formulas on small inputs, for every element type the
// type constraints allow, every attribute and version, and the errors.

import { describe, expect, it } from "vitest";
import { attr, type AttrInput } from "../../src/ir/builder.js";
import type { RTensor } from "../../src/interp/types.js";
import { run } from "../../src/interp/executor.js";
import { DataType, T, f32, i64, oneNodeModel, runOne, vals, valueInfo } from "../helpers/interp.js";

const F = DataType.FLOAT;
const D = DataType.DOUBLE;
const H = DataType.FLOAT16;
const B = DataType.BFLOAT16;
const FLOATS = [F, D, H, B];

/** Half an ulp-ish per type: the kernels round once, the expected values are rounded here. */
const TOL: Record<number, { rtol: number; atol: number }> = {
  [D]: { rtol: 1e-13, atol: 1e-14 },
  [F]: { rtol: 2 ** -23, atol: 1e-7 },
  [H]: { rtol: 2 ** -10, atol: 1e-4 },
  [B]: { rtol: 2 ** -7, atol: 1e-3 },
};

/** Expects a tensor of `dtype` and `shape` whose values are `expected` rounded to the type. */
function expectValues(t: RTensor, dtype: number, shape: number[], expected: number[]): void {
  expect(t.dtype).toBe(dtype);
  expect(t.shape).toEqual(shape);
  const want = vals(T(dtype, shape, expected)) as number[];
  const got = vals(t) as number[];
  const { rtol, atol } = TOL[dtype]!;
  got.forEach((g, i) => {
    const w = want[i]!;
    if (Number.isNaN(w)) expect(g, `element ${i}`).toBeNaN();
    else if (!Number.isFinite(w)) expect(g, `element ${i}`).toBe(w);
    else
      expect(Math.abs(g - w), `element ${i}: ${g} vs ${w}`).toBeLessThanOrEqual(
        atol + rtol * Math.abs(w),
      );
  });
}

interface Call {
  op: string;
  opset: number;
  inputs: (RTensor | undefined)[];
  attrs?: Record<string, AttrInput>;
  /** FLOAT attributes whose values are integers (attrs would make them INT). */
  floats?: Record<string, number>;
  outputs?: number;
}
/** Runs one node; an undefined input is an omitted optional input. */
function call({ op, opset, inputs, attrs, floats, outputs }: Call): RTensor[] {
  return runOne({
    op,
    opset,
    inputs: inputs.filter((t): t is RTensor => t !== undefined),
    names: inputs.map((t, i) => (t === undefined ? "" : `x${i}`)),
    attrs,
    attributes: Object.entries(floats ?? {}).map(([k, v]) => attr(k, v, "FLOAT")),
    outputs,
  });
}
const first = (c: Call) => call(c)[0]!;

/** Runs one node whose outputs are named `outs` ("" leaves an optional output out). */
function callNamed(c: Call, outs: string[]): Record<string, RTensor> {
  const ins = c.inputs.filter((t): t is RTensor => t !== undefined);
  const names = c.inputs.map((t, i) => (t === undefined ? "" : `x${i}`));
  const m = oneNodeModel({ op: c.op, opset: c.opset, inputs: ins, names, attrs: c.attrs });
  m.graph.nodes[0]!.outputs = outs;
  m.graph.outputs = outs.filter((o) => o !== "").map((o) => valueInfo(o));
  const feeds = Object.fromEntries(names.filter((n) => n !== "").map((n, i) => [n, ins[i]!]));
  return run(m, feeds) as Record<string, RTensor>;
}

const sigmoid = (t: number) => 1 / (1 + Math.exp(-t));

// ---------------------------------------------------------------------------------------------

describe("Gelu-20", () => {
  // 0.5·x·(1 + erf(x/√2)) = x·Φ(x); Φ from tables of the normal distribution.
  const xs = [-3, -1, 0, 0.5, 1, 2];
  const phi = [
    0.0013498980316300946, 0.15865525393145707, 0.5, 0.6914624612740131, 0.8413447460685429,
    0.9772498680518208,
  ];
  it("is x·Φ(x) for every float type", () => {
    for (const dtype of FLOATS)
      expectValues(
        first({ op: "Gelu", opset: 20, inputs: [T(dtype, [2, 3], xs)] }),
        dtype,
        [2, 3],
        xs.map((x, i) => x * phi[i]!),
      );
  });
  it("approximate='tanh' is 0.5·x·(1 + tanh(√(2/π)(x + 0.044715x³)))", () => {
    const ys = [-6, -2.5, -0.3, 0, 0.7, 3];
    const f = (x: number) =>
      0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3)));
    for (const dtype of FLOATS)
      expectValues(
        first({
          op: "Gelu",
          opset: 20,
          inputs: [T(dtype, [6], ys)],
          attrs: { approximate: "tanh" },
        }),
        dtype,
        [6],
        ys.map(f),
      );
  });
  it("keeps the formula's values at the infinities and NaN, is accurate far out", () => {
    const y = first({
      op: "Gelu",
      opset: 20,
      inputs: [T(D, [4], [-Infinity, Infinity, NaN, -10])],
    });
    const v = vals(y) as number[];
    expect(v[0]).toBeNaN(); // -inf · 0
    expect(v[1]).toBe(Infinity);
    expect(v[2]).toBeNaN();
    // -10·Φ(-10) = -10 · 7.619853024160527e-24
    expect(Math.abs(v[3]! / -7.619853024160527e-23 - 1)).toBeLessThan(1e-13);
  });
  it("rejects an unknown approximation and integer input", () => {
    expect(() =>
      first({ op: "Gelu", opset: 20, inputs: [f32([1], [1])], attrs: { approximate: "erf" } }),
    ).toThrow(/Gelu.*approximate must be 'none' or 'tanh', got 'erf'/);
    expect(() => first({ op: "Gelu", opset: 20, inputs: [i64([1], [1])] })).toThrow(
      /X must be a floating-point tensor, got int64/,
    );
  });
});

describe("Mish-18/22, Swish-24, SwiGLU-28", () => {
  const xs = [-20, -2, -0.5, 0, 0.25, 1, 3, 50];
  it("Mish is x·tanh(ln(1 + eˣ)) in both versions", () => {
    const f = (x: number) => x * Math.tanh(Math.log1p(Math.exp(x)));
    for (const opset of [18, 22])
      for (const dtype of FLOATS)
        expectValues(
          first({ op: "Mish", opset, inputs: [T(dtype, [8], xs)] }),
          dtype,
          [8],
          xs.map(f),
        );
    const v = vals(first({ op: "Mish", opset: 22, inputs: [T(D, [2], [1000, -1000])] }));
    expect(v).toEqual([1000, -0]);
  });
  it("Swish is x·sigmoid(alpha·x), alpha 1 by default", () => {
    for (const dtype of FLOATS) {
      expectValues(
        first({ op: "Swish", opset: 24, inputs: [T(dtype, [8], xs)] }),
        dtype,
        [8],
        xs.map((x) => x * sigmoid(x)),
      );
      expectValues(
        first({ op: "Swish", opset: 24, inputs: [T(dtype, [8], xs)], attrs: { alpha: -0.75 } }),
        dtype,
        [8],
        xs.map((x) => x * sigmoid(-0.75 * x)),
      );
    }
  });
  it("SwiGLU is Swish_alpha(A)·B (the spec's examples)", () => {
    const a = [1, -2, 3, 4, -1, 2, -3, 0.5];
    const b = [0.5, 1, -1, 2, 2, -1, 0.5, 1];
    for (const dtype of FLOATS)
      for (const alpha of [undefined, 0.5]) {
        const al = alpha ?? 1;
        expectValues(
          first({
            op: "SwiGLU",
            opset: 28,
            inputs: [T(dtype, [2, 4], a), T(dtype, [2, 4], b)],
            attrs: alpha === undefined ? {} : { alpha },
          }),
          dtype,
          [2, 4],
          a.map((x, i) => x * sigmoid(al * x) * b[i]!),
        );
      }
  });
  it("SwiGLU does not broadcast and wants one type", () => {
    expect(() =>
      first({ op: "SwiGLU", opset: 28, inputs: [f32([2, 2], [1, 2, 3, 4]), f32([2], [1, 2])] }),
    ).toThrow(/A \[2,2\] and B \[2\] must have the same shape/);
    expect(() =>
      first({ op: "SwiGLU", opset: 28, inputs: [f32([1], [1]), T(D, [1], [1])] }),
    ).toThrow(/A and B must have one type, got float and double/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("GroupNormalization-18/21", () => {
  // X (1, 4, 2): channels 0–1 form group 0 ([1,2],[3,4]), channels 2–3 group 1 ([0,0],[2,6]).
  const x = [1, 2, 3, 4, 0, 0, 2, 6];
  const eps = 1e-5;
  const g0 = (v: number) => (v - 2.5) / Math.sqrt(1.25 + Math.fround(eps));
  const g1 = (v: number) => (v - 2) / Math.sqrt(6 + Math.fround(eps));
  it("version 21 scales and shifts per channel", () => {
    const s = [1, 2, 3, 4];
    const b = [0, 1, 0, -1];
    for (const dtype of FLOATS)
      expectValues(
        first({
          op: "GroupNormalization",
          opset: 21,
          inputs: [T(dtype, [1, 4, 2], x), T(dtype, [4], s), T(dtype, [4], b)],
          attrs: { num_groups: 2 },
        }),
        dtype,
        [1, 4, 2],
        x.map((v, i) => {
          const c = Math.floor(i / 2);
          return (c < 2 ? g0(v) : g1(v)) * s[c]! + b[c]!;
        }),
      );
  });
  it("version 18 scales and shifts per group", () => {
    for (const dtype of FLOATS)
      expectValues(
        first({
          op: "GroupNormalization",
          opset: 18,
          inputs: [T(dtype, [1, 4, 2], x), T(dtype, [2], [2, -1]), T(dtype, [2], [0.5, 3])],
          attrs: { num_groups: 2 },
        }),
        dtype,
        [1, 4, 2],
        x.map((v, i) => (i < 4 ? g0(v) * 2 + 0.5 : -g1(v) + 3)),
      );
  });
  it("epsilon and stash_type: one group is a layer norm over C and the spatial axes", () => {
    const y = first({
      op: "GroupNormalization",
      opset: 21,
      inputs: [T(D, [1, 2, 1], [1, 3]), T(D, [2], [1, 1]), T(D, [2], [0, 0])],
      attrs: { num_groups: 1, epsilon: 0.5, stash_type: DataType.DOUBLE },
    });
    expectValues(y, D, [1, 2, 1], [-1 / Math.sqrt(1.5), 1 / Math.sqrt(1.5)]);
  });
  it("rejects groups that do not divide C and scales of the other version's shape", () => {
    const x3 = f32([1, 3, 1], [1, 2, 3]);
    expect(() =>
      first({
        op: "GroupNormalization",
        opset: 21,
        inputs: [x3, f32([3], [1, 1, 1]), f32([3], [0, 0, 0])],
        attrs: { num_groups: 2 },
      }),
    ).toThrow(/num_groups 2 must be positive and divide the number of channels 3/);
    expect(() =>
      first({
        op: "GroupNormalization",
        opset: 21,
        inputs: [x3, f32([1], [1]), f32([1], [0])],
        attrs: { num_groups: 1 },
      }),
    ).toThrow(/scale must have shape \[3\] \(one value per channel\), got \[1\]/);
  });
});

describe("RMSNormalization-23", () => {
  it("divides by sqrt(mean(x²) + epsilon) over [axis, r) and scales; Y has scale's type", () => {
    const rms = Math.sqrt(12.5 + Math.fround(1e-5));
    for (const t of FLOATS)
      for (const v of FLOATS)
        expectValues(
          first({
            op: "RMSNormalization",
            opset: 23,
            inputs: [T(t, [2, 2], [3, 4, 0, 0]), T(v, [2], [1, 0.5])],
          }),
          v,
          [2, 2],
          [3 / rms, 2 / rms, 0, 0],
        );
  });
  it("axis 0 normalises everything; scale broadcasts onto X; epsilon", () => {
    const y = first({
      op: "RMSNormalization",
      opset: 23,
      inputs: [T(D, [2, 2], [1, 1, 1, 5]), T(D, [2, 1], [1, 2])],
      attrs: { axis: 0, epsilon: 0.25 },
    });
    const r = Math.sqrt(28 / 4 + 0.25);
    expectValues(y, D, [2, 2], [1 / r, 1 / r, 2 / r, 10 / r]);
  });
  it("rejects a scale that would change X's shape and an axis out of range", () => {
    expect(() =>
      first({
        op: "RMSNormalization",
        opset: 23,
        inputs: [f32([2], [1, 2]), f32([2, 2], [1, 1, 1, 1])],
      }),
    ).toThrow(/scale \[2,2\] must broadcast to X \[2\] without changing its shape/);
    expect(() =>
      first({
        op: "RMSNormalization",
        opset: 23,
        inputs: [f32([2], [1, 2]), f32([2], [1, 1])],
        attrs: { axis: 1 },
      }),
    ).toThrow(/axis 1 is out of range for rank 1/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("RotaryEmbedding-23", () => {
  // One head of size 4: x = [1, 2, 3, 4]; angles θ0 = π/2 (cos 0, sin 1), θ1 with cos 0.6, sin 0.8.
  const cos = [0, 0.6];
  const sin = [1, 0.8];
  it("rotates the two halves (x[j], x[j+2]) by default", () => {
    for (const dtype of [F, H, B])
      expectValues(
        first({
          op: "RotaryEmbedding",
          opset: 23,
          inputs: [
            T(dtype, [1, 1, 1, 4], [1, 2, 3, 4]),
            T(dtype, [1, 1, 2], cos),
            T(dtype, [1, 1, 2], sin),
          ],
        }),
        dtype,
        [1, 1, 1, 4],
        // real = cos·x1 − sin·x2, imag = sin·x1 + cos·x2 with x1 = [1,2], x2 = [3,4]
        [0 * 1 - 1 * 3, 0.6 * 2 - 0.8 * 4, 1 * 1 + 0 * 3, 0.8 * 2 + 0.6 * 4],
      );
  });
  it("rotates neighbours (x[2j], x[2j+1]) when interleaved", () => {
    expectValues(
      first({
        op: "RotaryEmbedding",
        opset: 23,
        inputs: [T(F, [1, 1, 1, 4], [1, 2, 3, 4]), T(F, [1, 1, 2], cos), T(F, [1, 1, 2], sin)],
        attrs: { interleaved: 1 },
      }),
      F,
      [1, 1, 1, 4],
      [0 * 1 - 1 * 2, 1 * 1 + 0 * 2, 0.6 * 3 - 0.8 * 4, 0.8 * 3 + 0.6 * 4],
    );
  });
  it("looks angles up by position id, heads of a 3-D input, partial rotation", () => {
    // X (1, 2, 2·4): two tokens, two heads; rotary_embedding_dim 2 rotates (x0, x1) only.
    const x = [1, 2, 3, 4, 5, 6, 7, 8, 1, 0, 1, 0, 0, 1, 0, 1];
    const y = first({
      op: "RotaryEmbedding",
      opset: 23,
      inputs: [
        T(F, [1, 2, 8], x),
        T(F, [3, 1], [1, 0, 0.6]),
        T(F, [3, 1], [0, 1, 0.8]),
        i64([1, 2], [2, 1]),
      ],
      attrs: { num_heads: 2, rotary_embedding_dim: 2 },
    });
    // token 0 uses row 2 (cos 0.6, sin 0.8), token 1 row 1 (cos 0, sin 1)
    const rot = (a: number, b: number, c: number, s: number) => [c * a - s * b, s * a + c * b];
    expectValues(
      y,
      F,
      [1, 2, 8],
      [
        ...rot(1, 2, 0.6, 0.8),
        3,
        4,
        ...rot(5, 6, 0.6, 0.8),
        7,
        8,
        ...rot(1, 0, 0, 1),
        1,
        0,
        ...rot(0, 1, 0, 1),
        0,
        1,
      ],
    );
  });
  it("rejects caches of the wrong width and position ids out of range", () => {
    const x = f32([1, 1, 1, 4], [1, 2, 3, 4]);
    expect(() =>
      first({
        op: "RotaryEmbedding",
        opset: 23,
        inputs: [x, f32([1, 1, 1], [1]), f32([1, 1, 1], [0])],
      }),
    ).toThrow(/cos_cache's last dimension must be rotary_embedding_dim \/ 2 = 2/);
    expect(() =>
      first({
        op: "RotaryEmbedding",
        opset: 23,
        inputs: [x, f32([2, 2], [1, 1, 1, 1]), f32([2, 2], [0, 0, 0, 0]), i64([1, 1], [2])],
      }),
    ).toThrow(/position id 2 is out of range for caches of 2 positions/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("Attention-23/24/25", () => {
  const e = Math.exp(Math.SQRT1_2);
  it("is softmax(Q·Kᵀ/√d)·V for every float type, V of another type than Q", () => {
    // Q = [1, 0]; K = [[1, 0], [0, 1]]; V = [[1, 2], [3, 4]]: logits [1/√2, 0].
    const p0 = e / (e + 1);
    for (const t1 of FLOATS)
      for (const t2 of [t1, D]) {
        const y = first({
          op: "Attention",
          opset: 23,
          inputs: [
            T(t1, [1, 1, 1, 2], [1, 0]),
            T(t1, [1, 1, 2, 2], [1, 0, 0, 1]),
            T(t2, [1, 1, 2, 2], [1, 2, 3, 4]),
          ],
        });
        expectValues(y, t1, [1, 1, 1, 2], [p0 + 3 * (1 - p0), 2 * p0 + 4 * (1 - p0)]);
      }
  });

  // Probabilities (mode 3) of Q (1,1,Sq,1) = 0 against K (1,1,Skv,1) = 0: uniform over the keys
  // that the bias leaves open, zero elsewhere.
  function probs(
    sq: number,
    skv: number,
    opset: number,
    attrs: Record<string, AttrInput>,
    extra: (RTensor | undefined)[] = [],
  ): number[][] {
    const outs = call({
      op: "Attention",
      opset,
      inputs: [
        f32([1, 1, sq, 1], new Array(sq).fill(0)),
        f32([1, 1, skv, 1], new Array(skv).fill(0)),
        f32([1, 1, skv, 1], new Array(skv).fill(1)),
        ...extra,
      ],
      attrs: { ...attrs, qk_matmul_output_mode: 3 },
      outputs: 4,
    });
    const p = vals(outs[3]!) as number[];
    return Array.from({ length: sq }, (_, i) =>
      p.slice(i * skv, (i + 1) * skv).map((v) => (v > 0 ? 1 : 0)),
    );
  }

  it("is_causal is aligned bottom-right: past keys shift the frontier", () => {
    expect(probs(3, 3, 23, { is_causal: 1 })).toEqual([
      [1, 0, 0],
      [1, 1, 0],
      [1, 1, 1],
    ]);
    // two cached keys: query i sees keys j ≤ i + 2
    const outs = call({
      op: "Attention",
      opset: 23,
      inputs: [
        f32([1, 1, 2, 1], [0, 0]),
        f32([1, 1, 2, 1], [0, 0]),
        f32([1, 1, 2, 1], [3, 4]),
        undefined,
        f32([1, 1, 2, 1], [0, 0]),
        f32([1, 1, 2, 1], [1, 2]),
      ],
      attrs: { is_causal: 1, qk_matmul_output_mode: 3 },
      outputs: 4,
    });
    expect(vals(outs[3]!)).toEqual(
      [1 / 3, 1 / 3, 1 / 3, 0, 0.25, 0.25, 0.25, 0.25].map(Math.fround),
    );
    expectValues(outs[0]!, F, [1, 1, 2, 1], [2, 2.5]);
    expect(vals(outs[1]!)).toEqual([0, 0, 0, 0]); // present_key = past ++ K
    expect(vals(outs[2]!)).toEqual([1, 2, 3, 4]);
  });

  it("boolean masks intersect, a shorter mask is padded with -inf, a fully masked row gives 0", () => {
    const mask = T(DataType.BOOL, [2, 2], [1, 0, 0, 0]); // row 1 masks every key it has
    const outs = call({
      op: "Attention",
      opset: 23,
      inputs: [
        f32([1, 1, 2, 1], [0, 0]),
        f32([1, 1, 3, 1], [0, 0, 0]),
        f32([1, 1, 3, 1], [5, 6, 7]),
        mask,
      ],
      attrs: { qk_matmul_output_mode: 3 },
      outputs: 4,
    });
    expect(vals(outs[0]!)).toEqual([5, 0]);
    expect(vals(outs[3]!)).toEqual([1, 0, 0, 0, 0, 0]);
  });

  it("float and integer masks are added to the scores", () => {
    for (const mt of [F, DataType.INT32]) {
      const outs = call({
        op: "Attention",
        opset: 23,
        inputs: [
          f32([1, 1, 1, 1], [0]),
          f32([1, 1, 2, 1], [0, 0]),
          f32([1, 1, 2, 1], [0, 1]),
          T(mt, [2], [0, 1]),
        ],
        attrs: { qk_matmul_output_mode: 2 },
        outputs: 4,
      });
      expectValues(outs[0]!, F, [1, 1, 1, 1], [Math.E / (1 + Math.E)]);
      expect(vals(outs[3]!)).toEqual([0, 1]);
    }
  });

  it("qk_matmul_output modes: raw scaled, softcapped, with bias, probabilities", () => {
    // Q = [2], K = [[1], [3]], scale 0.5: raw [1, 3]; softcap 2: 2·tanh(raw/2); mask [0, -1].
    const run = (mode: number) =>
      call({
        op: "Attention",
        opset: 23,
        inputs: [
          T(D, [1, 1, 1, 1], [2]),
          T(D, [1, 1, 2, 1], [1, 3]),
          T(D, [1, 1, 2, 1], [0, 0]),
          T(D, [2], [0, -1]),
        ],
        attrs: { qk_matmul_output_mode: mode, scale: 0.5, softcap: 2.5 },
        outputs: 4,
      })[3]!;
    const capped = [1, 3].map((v) => 2.5 * Math.tanh(v / 2.5));
    expectValues(run(0), D, [1, 1, 1, 2], [1, 3]);
    expectValues(run(1), D, [1, 1, 1, 2], capped);
    expectValues(run(2), D, [1, 1, 1, 2], [capped[0]!, capped[1]! - 1]);
    const z = Math.exp(capped[0]!) + Math.exp(capped[1]! - 1);
    expectValues(run(3), D, [1, 1, 1, 2], [Math.exp(capped[0]!) / z, Math.exp(capped[1]! - 1) / z]);
  });

  it("groups query heads onto KV heads (head h reads KV head ⌊h / 2⌋) and packs 3-D inputs", () => {
    // K = 0 gives uniform weights, so each query head returns the mean of its KV head's values.
    const y4 = first({
      op: "Attention",
      opset: 23,
      inputs: [
        f32([1, 4, 1, 1], [1, 2, 3, 4]),
        f32([1, 2, 2, 1], [0, 0, 0, 0]),
        f32([1, 2, 2, 1], [1, 3, 10, 30]),
      ],
    });
    expect(vals(y4)).toEqual([2, 2, 20, 20]);
    // The same as 3-D: Q (1, 1, 4·1), K (1, 2, 2·1), V (1, 2, 2·1) packed (B, S, H·D).
    const y3 = first({
      op: "Attention",
      opset: 23,
      inputs: [
        f32([1, 1, 4], [1, 2, 3, 4]),
        f32([1, 2, 2], [0, 0, 0, 0]),
        f32([1, 2, 2], [1, 10, 3, 30]),
      ],
      attrs: { q_num_heads: 4, kv_num_heads: 2 },
    });
    expect(y3.shape).toEqual([1, 1, 4]);
    expect(vals(y3)).toEqual([2, 2, 20, 20]);
  });

  it("version 24: nonpad_kv_seqlen pads per batch and sets the causal offset (the spec's figure)", () => {
    const q = f32([2, 1, 4, 1], new Array(8).fill(0));
    const k = f32([2, 1, 8, 1], new Array(16).fill(0));
    const outs = callNamed(
      {
        op: "Attention",
        opset: 24,
        inputs: [q, k, k, undefined, undefined, undefined, i64([2], [4, 8])],
        attrs: { is_causal: 1, qk_matmul_output_mode: 3 },
      },
      ["y", "", "", "qk"],
    );
    const p = (vals(outs.qk!) as number[]).map((v) => (v > 0 ? 1 : 0));
    const rows = Array.from({ length: 8 }, (_, i) => p.slice(i * 8, i * 8 + 8).join(""));
    expect(rows).toEqual([
      "10000000",
      "11000000",
      "11100000",
      "11110000", // nonpad 4: offset 0
      "11111000",
      "11111100",
      "11111110",
      "11111111", // nonpad 8: offset 4
    ]);
  });

  it("version 25: sliding windows (the spec's figure), alone and with is_causal", () => {
    expect(probs(4, 6, 25, { left_window_size: 2, right_window_size: 1 })).toEqual([
      [1, 1, 0, 0, 0, 0],
      [1, 1, 1, 0, 0, 0],
      [1, 1, 1, 1, 0, 0],
      [0, 1, 1, 1, 1, 0],
    ]);
    expect(probs(3, 3, 25, { left_window_size: 0, is_causal: 1 })).toEqual([
      [1, 0, 0],
      [0, 1, 0],
      [0, 0, 1],
    ]);
    // Before version 25 the window attributes do not exist and are not applied.
    expect(probs(2, 2, 24, { left_window_size: 0, right_window_size: 0 })).toEqual([
      [1, 1],
      [1, 1],
    ]);
  });

  it("rejects what the spec forbids, naming the node", () => {
    const q = f32([1, 3, 1, 2], [1, 2, 3, 4, 5, 6]);
    const k = f32([1, 2, 1, 2], [1, 2, 3, 4]);
    expect(() => first({ op: "Attention", opset: 23, inputs: [q, k, k] })).toThrow(
      /Attention.*number of query heads 3 is not a multiple of the number of KV heads 2/,
    );
    const q2 = f32([1, 2, 1, 2], [1, 2, 3, 4]);
    expect(() =>
      first({ op: "Attention", opset: 23, inputs: [q2, k, k, undefined, f32([1, 2, 0, 2], [])] }),
    ).toThrow(/past_key and past_value must be given together/);
    expect(() =>
      first({ op: "Attention", opset: 25, inputs: [q2, k, k], attrs: { q_num_heads: 2 } }),
    ).toThrow(/q_num_heads and kv_num_heads must not be given for 4-D inputs/);
    expect(() =>
      first({ op: "Attention", opset: 23, inputs: [q2, k, k, T(DataType.BOOL, [3], [1, 1, 1])] }),
    ).toThrow(/attn_mask's last dimension 3 is longer than the total sequence length 1/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("LinearAttention-27", () => {
  // One batch, one head, d_k = 2, d_v = 1, two tokens; q = k = unit vectors, scale 1.
  const q = [1, 0, 0, 1];
  const k = [1, 0, 0, 1];
  const v = [2, 3];
  const base = { q_num_heads: 1, kv_num_heads: 1 };
  const one = { scale: 1 };
  it("linear: S += k ⊗ v, o = scale·qᵀS; present_state is the last S", () => {
    const [o, s] = call({
      op: "LinearAttention",
      opset: 27,
      inputs: [f32([1, 2, 2], q), f32([1, 2, 2], k), f32([1, 2, 1], v)],
      attrs: { ...base, update_rule: "linear", scale: 0.5 },
      outputs: 2,
    });
    expect(vals(o!)).toEqual([1, 1.5]);
    expect(s!.shape).toEqual([1, 1, 2, 1]);
    expect(vals(s!)).toEqual([2, 3]);
  });
  it("gated: S decays by exp(g) first (per head or per key dimension)", () => {
    const g = Math.log(0.5);
    const gatedRun = (past: RTensor | undefined, decay: RTensor) =>
      call({
        op: "LinearAttention",
        opset: 27,
        inputs: [f32([1, 2, 2], q), f32([1, 2, 2], k), f32([1, 2, 1], v), past, decay],
        attrs: { ...base, update_rule: "gated" },
        floats: one,
        outputs: 2,
      });
    const [o, s] = gatedRun(T(H, [1, 1, 2, 1], [4, 8]), f32([1, 2, 1], [g, g]));
    // f = exp(g) (g rounded to float first): S0 = [4, 8] → ·f + [2, 0] → ·f + [0, 3]
    const f = Math.exp(Math.fround(g));
    const s1 = [4 * f + 2, 8 * f];
    const s2 = [s1[0]! * f, s1[1]! * f + 3];
    expectValues(o!, F, [1, 2, 1], [s1[0]!, s2[1]!]);
    expectValues(s!, H, [1, 1, 2, 1], s2); // present_state has past_state's type
    const [o2] = gatedRun(undefined, f32([1, 2, 2], [0, g, g, 0]));
    // per key dimension: S = [2, 0] → [2·1 + 0, 0·0.5 + 0] then → [1 + 0, 0 + 3]; o = [2, 3]
    expect(vals(o2!)).toEqual([2, 3]);
  });
  it("delta and gated_delta: v is replaced by beta·(v − Sᵀk)", () => {
    // The same query and key twice, v = [2, 6], beta 0.5.
    const deltaRun = (rule: string, decay?: RTensor) =>
      call({
        op: "LinearAttention",
        opset: 27,
        inputs: [
          f32([1, 2, 2], [1, 0, 1, 0]),
          f32([1, 2, 2], [1, 0, 1, 0]),
          f32([1, 2, 1], [2, 6]),
          undefined,
          decay,
          f32([1, 2, 1], [0.5, 0.5]),
        ],
        attrs: { ...base, update_rule: rule },
        floats: one,
        outputs: 2,
      });
    // S = [1, 0]ᵀ·0.5·2 = [1, 0]; then w = 0.5·(6 − 1) = 2.5, S = [3.5, 0]
    expect(vals(deltaRun("delta")[0]!)).toEqual([1, 3.5]);
    const [o2, s2] = deltaRun("gated_delta", f32([1, 2, 1], [0, Math.log(0.5)]));
    // step 2: S = f·[1, 0]; w = 0.5·(6 − f); S = [f + w, 0] (f = exp(g) ≈ 0.5)
    const f = Math.exp(Math.fround(Math.log(0.5)));
    expectValues(o2!, F, [1, 2, 1], [1, f + 0.5 * (6 - f)]);
    expect(s2!.dtype).toBe(F);
  });
  it("shares a KV head's state among its query heads; scale defaults to 1/√d_k; every type", () => {
    for (const dtype of [F, H, B]) {
      const [o] = call({
        op: "LinearAttention",
        opset: 27,
        inputs: [
          T(dtype, [1, 1, 4], [1, 1, 2, 0]),
          T(dtype, [1, 1, 2], [1, 1]),
          T(dtype, [1, 1, 1], [3]),
        ],
        attrs: { q_num_heads: 2, kv_num_heads: 1, update_rule: "linear" },
        outputs: 2,
      });
      // S = [3, 3]; head 0: (1 + 1)·3/√2, head 1: 2·3/√2
      expectValues(o!, dtype, [1, 1, 2], [6 / Math.SQRT2, 6 / Math.SQRT2]);
    }
  });
  it("rejects missing or forbidden decay/beta and head counts that do not divide", () => {
    const x = f32([1, 1, 2], [1, 1]);
    const v1 = f32([1, 1, 1], [1]);
    expect(() =>
      call({ op: "LinearAttention", opset: 27, inputs: [x, x, v1], attrs: base, outputs: 2 }),
    ).toThrow(/update_rule 'gated_delta' requires the decay input/);
    expect(() =>
      call({
        op: "LinearAttention",
        opset: 27,
        inputs: [x, x, v1, undefined, undefined, f32([1, 1, 1], [1])],
        attrs: { ...base, update_rule: "linear" },
        outputs: 2,
      }),
    ).toThrow(/update_rule 'linear' forbids the beta input/);
    expect(() =>
      call({
        op: "LinearAttention",
        opset: 27,
        inputs: [x, x, v1],
        attrs: { q_num_heads: 3, kv_num_heads: 2, update_rule: "linear" },
        outputs: 2,
      }),
    ).toThrow(/q_num_heads 3 must be a multiple of kv_num_heads 2/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("CausalConvWithState-27", () => {
  const w = [1, 2, 3];
  it("convolves the zero-prefixed sequence and keeps the last k−1 positions", () => {
    for (const dtype of [F, H, B]) {
      const [y, s] = call({
        op: "CausalConvWithState",
        opset: 27,
        inputs: [T(dtype, [1, 1, 3], [1, 2, 3]), T(dtype, [1, 1, 3], w)],
        outputs: 2,
      });
      // padded [0, 0, 1, 2, 3]: [3, 2·1 + 3·2, 1 + 2·2 + 3·3]
      expectValues(y!, dtype, [1, 1, 3], [3, 8, 14]);
      expectValues(s!, dtype, [1, 1, 2], [2, 3]);
    }
  });
  it("uses past_state and bias per channel, and silu/swish", () => {
    const [y, s] = call({
      op: "CausalConvWithState",
      opset: 27,
      inputs: [
        f32([1, 2, 1], [1, 2]),
        f32([2, 1, 3], [...w, 0, 0, 1]),
        f32([2], [0.5, -1]),
        f32([1, 2, 2], [5, 6, 7, 8]),
      ],
      outputs: 2,
    });
    // channel 0: [5, 6, 1]·[1, 2, 3] + 0.5 = 20.5; channel 1: [7, 8, 2]·[0, 0, 1] − 1 = 1
    expect(vals(y!)).toEqual([20.5, 1]);
    expect(vals(s!)).toEqual([6, 1, 8, 2]);
    for (const activation of ["silu", "swish"]) {
      const [ya] = call({
        op: "CausalConvWithState",
        opset: 27,
        inputs: [f32([1, 1, 2], [1, -2]), f32([1, 1, 1], [1])],
        attrs: { activation },
        outputs: 2,
      });
      expectValues(ya!, F, [1, 1, 2], [sigmoid(1), -2 * sigmoid(-2)]);
    }
  });
  it("k = 1 keeps an empty state; an input shorter than k−1 keeps part of the past", () => {
    const [, s1] = call({
      op: "CausalConvWithState",
      opset: 27,
      inputs: [f32([1, 1, 2], [1, 2]), f32([1, 1, 1], [2])],
      outputs: 2,
    });
    expect(s1!.shape).toEqual([1, 1, 0]);
    const [y, s] = call({
      op: "CausalConvWithState",
      opset: 27,
      inputs: [f32([1, 1, 1], [7]), f32([1, 1, 3], w), undefined, f32([1, 1, 2], [5, 6])],
      outputs: 2,
    });
    expect(vals(y!)).toEqual([5 + 12 + 21]);
    expect(vals(s!)).toEqual([6, 7]);
  });
  it("rejects an unknown activation and a weight of the wrong layout", () => {
    const x = f32([1, 1, 2], [1, 2]);
    expect(() =>
      call({
        op: "CausalConvWithState",
        opset: 27,
        inputs: [x, f32([1, 1, 1], [1])],
        attrs: { activation: "relu" },
        outputs: 2,
      }),
    ).toThrow(/activation must be 'none', 'silu' or 'swish', got 'relu'/);
    expect(() =>
      call({ op: "CausalConvWithState", opset: 27, inputs: [x, f32([1, 2], [1, 1])], outputs: 2 }),
    ).toThrow(/weight must have shape \[1,1,k\], got \[1,2\]/);
  });
});

// ---------------------------------------------------------------------------------------------

describe("AffineGrid-20", () => {
  it("2-D: identity and translation, align_corners 0 and 1, every float type", () => {
    for (const dtype of FLOATS) {
      const theta = T(dtype, [2, 2, 3], [1, 0, 0, 0, 1, 0, 1, 0, 0.5, 0, 1, -0.5]);
      const size = i64([4], [2, 1, 2, 3]);
      // align_corners 0: x = [-2/3, 0, 2/3], y = [-1/2, 1/2]; align_corners 1: x = [-1, 0, 1], y = [-1, 1]
      for (const [align, xs, ys] of [
        [0, [-2 / 3, 0, 2 / 3], [-0.5, 0.5]],
        [1, [-1, 0, 1], [-1, 1]],
      ] as const) {
        const want: number[] = [];
        for (const [tx, ty] of [
          [0, 0],
          [0.5, -0.5],
        ])
          for (const y of ys) for (const x of xs) want.push(x + tx, y + ty);
        expectValues(
          first({
            op: "AffineGrid",
            opset: 20,
            inputs: [theta, size],
            attrs: { align_corners: align },
          }),
          dtype,
          [2, 2, 3, 2],
          want,
        );
      }
    }
  });
  it("3-D: (x, y, z) from the last three axes; a single position sits at 0 or -1", () => {
    // theta swaps x and z and scales y by 2
    const theta = T(D, [1, 3, 4], [0, 0, 1, 0, 0, 2, 0, 0, 1, 0, 0, 0]);
    const grid = (align: number) =>
      first({
        op: "AffineGrid",
        opset: 20,
        inputs: [theta, i64([5], [1, 1, 1, 2, 2])],
        attrs: { align_corners: align },
      });
    // D = 1: z = 0 (align 0) or -1 (align 1); H = W = 2: ±0.5 or ±1
    expectValues(grid(0), D, [1, 1, 2, 2, 3], [0, -1, -0.5, 0, -1, 0.5, 0, 1, -0.5, 0, 1, 0.5]);
    expectValues(grid(1), D, [1, 1, 2, 2, 3], [-1, -2, -1, -1, -2, 1, -1, 2, -1, -1, 2, 1]);
  });
  it("rejects a theta that does not match the size's rank", () => {
    expect(() =>
      first({
        op: "AffineGrid",
        opset: 20,
        inputs: [f32([1, 2, 3], [1, 0, 0, 0, 1, 0]), i64([5], [1, 1, 2, 2, 2])],
      }),
    ).toThrow(/theta must have shape \[N,3,4\] for a 3-D size, got \[1,2,3\]/);
  });
});

describe("CenterCropPad-18", () => {
  const x = [1, 2, 3, 4, 5];
  const ccp = (t: RTensor, shape: number[], attrs: Record<string, AttrInput> = {}) =>
    first({ op: "CenterCropPad", opset: 18, inputs: [t, i64([shape.length], shape)], attrs });
  it("crops from floor((dim − target)/2) and pads with the odd pixel at the end", () => {
    expect(vals(ccp(f32([5], x), [3]))).toEqual([2, 3, 4]);
    expect(vals(ccp(f32([5], x), [4]))).toEqual([1, 2, 3, 4]);
    expect(vals(ccp(f32([5], x), [8]))).toEqual([0, 1, 2, 3, 4, 5, 0, 0]);
    expect(vals(ccp(f32([5], x), [0]))).toEqual([]);
  });
  it("crops one axis and pads another, chosen by axes (negative too), int32 shape", () => {
    const m = f32([3, 2], [1, 2, 3, 4, 5, 6]);
    const y = first({
      op: "CenterCropPad",
      opset: 18,
      inputs: [m, T(DataType.INT32, [2], [4, 1])],
      attrs: { axes: [-1, 0] },
    });
    // axis 1: 2 → 4 (one column of zeros each side); axis 0: 3 → 1 (the middle row)
    expect(y.shape).toEqual([1, 4]);
    expect(vals(y)).toEqual([0, 3, 4, 0]);
  });
  it("accepts every element type: integers, bool, string, float16", () => {
    for (const dtype of [DataType.INT8, DataType.UINT16, DataType.INT64, DataType.BOOL, H, B, D]) {
      const t = T(dtype, [3], [1, 0, 1]);
      expect(vals(ccp(t, [5]))).toEqual(vals(T(dtype, [5], [0, 1, 0, 1, 0])));
    }
    const s: RTensor = { dtype: DataType.STRING, shape: [3], data: ["a", "b", "c"] };
    expect(vals(ccp(s, [4]))).toEqual(["a", "b", "c", ""]);
    expect(vals(ccp(s, [1]))).toEqual(["b"]);
  });
  it("rejects a shape of the wrong length and repeated axes", () => {
    expect(() => ccp(f32([5], x), [3, 3])).toThrow(/shape has 2 values but there are 1 axes/);
    expect(() => ccp(f32([2, 2], [1, 2, 3, 4]), [1, 1], { axes: [0, -2] })).toThrow(
      /repeat an axis/,
    );
  });
});

describe("Bernoulli-15/22", () => {
  it("gives 1 where p = 1 and 0 where p = 0, in the input's type or the dtype attribute's", () => {
    for (const opset of [15, 22])
      for (const [dtype, out] of [
        [undefined, F],
        [DataType.BOOL, DataType.BOOL],
        [DataType.INT64, DataType.INT64],
        [H, H],
      ] as const) {
        const y = first({
          op: "Bernoulli",
          opset,
          inputs: [T(F, [2, 3], [1, 0, 1, 1, 0, 0])],
          attrs: dtype === undefined ? {} : { dtype },
        });
        expect(y.dtype).toBe(out);
        expect(y.shape).toEqual([2, 3]);
        expect(vals(y).map(Number)).toEqual([1, 0, 1, 1, 0, 0]);
      }
  });
  it("with a seed, draws the same values every run, 1 with frequency p", () => {
    const p = T(D, [4000], new Array(4000).fill(0.3));
    const draw = (seed: number) =>
      vals(first({ op: "Bernoulli", opset: 22, inputs: [p], floats: { seed } })) as number[];
    const a = draw(7);
    expect(draw(7)).toEqual(a);
    expect(draw(8)).not.toEqual(a);
    const ones = a.filter((v) => v === 1).length;
    expect(ones).toBeGreaterThan(4000 * 0.3 - 150); // ±5 standard deviations
    expect(ones).toBeLessThan(4000 * 0.3 + 150);
  });
  it("rejects values that are not probabilities", () => {
    expect(() => first({ op: "Bernoulli", opset: 22, inputs: [f32([2], [0.5, 1.5])] })).toThrow(
      /input value 1.5 at index 1 is not a probability in \[0, 1\]/,
    );
  });
});

describe("RandomUniform, RandomNormal and their Like forms (1, 22)", () => {
  const x = T(DataType.INT32, [50, 40], new Array(2000).fill(0));
  const draw = (op: string, opset: number, floats: Record<string, number>, dtype = F) =>
    op.endsWith("Like")
      ? first({ op, opset, inputs: [x], attrs: { dtype }, floats })
      : first({ op, opset, inputs: [], attrs: { dtype, shape: [50, 40] }, floats });
  it("uniform: in [low, high) in the dtype, the same values for the same seed", () => {
    for (const op of ["RandomUniform", "RandomUniformLike"])
      for (const dtype of FLOATS) {
        const y = draw(op, 22, { low: -2, high: 3, seed: 5 }, dtype);
        expect(y.dtype).toBe(dtype);
        expect(y.shape).toEqual([50, 40]);
        const v = vals(y) as number[];
        expect(Math.min(...v)).toBeGreaterThanOrEqual(-2);
        expect(Math.max(...v)).toBeLessThan(3);
        const mean = v.reduce((a, b) => a + b, 0) / v.length;
        expect(Math.abs(mean - 0.5)).toBeLessThan(0.2); // 5 standard deviations: 5 * 1.44 / sqrt(2000)
        expect(vals(draw(op, 22, { low: -2, high: 3, seed: 5 }, dtype))).toEqual(v);
        expect(vals(draw(op, 22, { low: -2, high: 3, seed: 6 }, dtype))).not.toEqual(v);
      }
  });
  it("uniform float16 never rounds up to high (a quarter of the draws in [0.999, 1) would)", () => {
    const y = draw("RandomUniform", 1, { seed: 1, low: 0.999, high: 1 }, H);
    expect(Math.max(...(vals(y) as number[]))).toBeLessThan(1);
  });
  it("normal: mean and scale, the same values for the same seed", () => {
    for (const op of ["RandomNormal", "RandomNormalLike"]) {
      const v = vals(draw(op, 1, { mean: 10, scale: 2, seed: 9 }, D)) as number[];
      const mean = v.reduce((a, b) => a + b, 0) / v.length;
      const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length);
      expect(Math.abs(mean - 10)).toBeLessThan(0.25); // 5 standard errors: 5 * 2 / sqrt(2000)
      expect(Math.abs(sd - 2)).toBeLessThan(0.2);
      expect(vals(draw(op, 1, { mean: 10, scale: 2, seed: 9 }, D))).toEqual(v);
    }
  });
  it("Like forms take the input's type unless dtype is given, and refuse a non-float one", () => {
    const y = first({ op: "RandomUniformLike", opset: 22, inputs: [f32([3], [0, 0, 0])] });
    expect(y.dtype).toBe(F);
    expect(() => first({ op: "RandomNormalLike", opset: 22, inputs: [x] })).toThrow(
      /dtype 6 \(int32\) is not a floating-point type/,
    );
  });
});
