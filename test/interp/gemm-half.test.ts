// float16 and bfloat16 Conv, ConvTranspose, MatMul and Gemm on the WebAssembly product give the
// TypeScript loops' bits, on random inputs holding NaN, ±Inf, −0 and subnormals, on one thread and
// on two, with the weights as graph inputs and as initializers (packed once per run). Conv and
// MatMul sum in float32 (each product and each partial sum rounded to float32, in order of the
// summed index, from the bias), rounded once to the type: checked here against a loop written
// in the test; Gemm and ConvTranspose sum in float64.

import { afterEach, describe, expect, it } from "vitest";
import { graph, model, node, valueInfo } from "../../src/ir/builder.js";
import { Tensor } from "../../src/ir/tensor.js";
import { numberToBfloat16Bits, numberToFloat16Bits } from "../../src/ir/dtype.js";
import { run } from "../../src/interp/executor.js";
import { gemmArena, setGemmDisabled } from "../../src/interp/kernels/wasm/gemm.js";
import { gemmHelpersReady, setGemmThreads } from "../../src/interp/kernels/wasm/gemm-threads.js";
import type { RTensor } from "../../src/interp/types.js";
import { DataType, fastAndGeneral, type OneNodeSpec } from "../helpers/interp.js";

const HALVES = [
  ["float16", DataType.FLOAT16],
  ["bfloat16", DataType.BFLOAT16],
] as const;

/**
 * Random half bits: mostly values in ±[2^-6, 2], some subnormals (float16: exponent 0; bfloat16:
 * tiny values), −0 and +0, and rarely (`specials`) NaN (both signs, several payloads) and ±Inf.
 */
function rand(dtype: number, shape: number[], seed: number, specials = 0.004): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const data = new Uint16Array(n);
  let s = seed >>> 0;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const f16 = dtype === DataType.FLOAT16;
  const enc = f16 ? numberToFloat16Bits : numberToBfloat16Bits;
  const special = f16
    ? [0x7e00, 0xfe00, 0x7c01, 0xfd55, 0x7c00, 0xfc00]
    : [0x7fc0, 0xffc0, 0x7f81, 0xffaa, 0x7f80, 0xff80];
  for (let i = 0; i < n; i++) {
    const r = next();
    const sign = next() < 0.5 ? 0x8000 : 0;
    if (r < specials) data[i] = special[Math.floor(next() * special.length)]!;
    else if (r < 0.05)
      data[i] = sign; // ±0
    else if (r < 0.15)
      data[i] = f16
        ? sign | (1 + Math.floor(next() * 0x3ff))
        : enc((sign ? -1 : 1) * next() * 1e-38);
    else data[i] = enc((sign ? -1 : 1) * 2 ** (next() * 7 - 6));
  }
  return { dtype, shape, data };
}

function expectSameBits(spec: OneNodeSpec): void {
  const [got, want] = fastAndGeneral(spec);
  expect(got.dtype).toBe(want.dtype);
  expect(got.shape).toEqual(want.shape);
  const [g, w] = [got.data as Uint16Array, want.data as Uint16Array];
  expect(g.length).toBe(w.length);
  let bad = -1;
  for (let i = 0; i < w.length && bad < 0; i++) if (g[i] !== w[i]) bad = i;
  if (bad >= 0) expect([bad, g[bad]!.toString(16)]).toEqual([bad, w[bad]!.toString(16)]);
}

afterEach(() => {
  setGemmDisabled(false);
  setGemmThreads(undefined, 1 << 21);
});

describe.each(HALVES)("%s products on the WebAssembly product", (_name, dt) => {
  const convs: [string, number[], number[], Record<string, number | number[]>, boolean][] = [
    ["3x3 pad 1", [1, 5, 9, 7], [7, 5, 3, 3], { pads: [1, 1, 1, 1] }, true],
    ["7x7 stride 2", [2, 3, 17, 15], [8, 3, 7, 7], { strides: [2, 2], pads: [3, 3, 3, 3] }, false],
    ["1x1", [1, 16, 6, 5], [13, 16, 1, 1], {}, true],
    ["dilated", [1, 4, 11, 11], [6, 4, 3, 3], { dilations: [2, 2], pads: [2, 1, 0, 2] }, true],
    ["grouped", [1, 8, 7, 7], [12, 2, 3, 3], { group: 4, pads: [1, 1, 1, 1] }, true],
    ["one output channel", [1, 6, 10, 9], [1, 6, 3, 3], { pads: [1, 1, 1, 1] }, true],
    ["1-D", [3, 6, 20], [5, 6, 4], { strides: [3] }, true],
    ["3-D", [1, 3, 5, 6, 4], [4, 3, 2, 3, 2], { pads: [1, 0, 1, 0, 1, 1] }, true],
  ];
  for (const [name, xs, ws, attrs, withBias] of convs)
    it(`Conv ${name}: the same bits as the TypeScript loop`, () => {
      const inputs = [rand(dt, xs, 1), rand(dt, ws, 2)];
      if (withBias) inputs.push(rand(dt, [ws[0]!], 3, 0.1));
      expectSameBits({ op: "Conv", inputs, attrs });
    });

  it("Conv with results in the subnormal range and overflowing to ±Inf", () => {
    const small = rand(dt, [1, 4, 6, 6], 4, 0);
    const big = rand(dt, [5, 4, 3, 3], 5, 0);
    // Scale the weights down by 2^-12 (subnormal sums) and, in a second run, up by 2^12.
    for (const scale of [2 ** -12, 2 ** 12]) {
      const w = new Uint16Array(big.data as Uint16Array);
      const enc = dt === DataType.FLOAT16 ? numberToFloat16Bits : numberToBfloat16Bits;
      const dec = (h: number) =>
        dt === DataType.FLOAT16
          ? f16Value(h)
          : new Float32Array(new Uint32Array([h << 16]).buffer)[0]!;
      for (let i = 0; i < w.length; i++) w[i] = enc(dec(w[i]!) * scale);
      expectSameBits({
        op: "Conv",
        inputs: [small, { dtype: dt, shape: big.shape, data: w }],
        attrs: { pads: [1, 1, 1, 1] },
      });
    }
  });

  it("MatMul: batched, broadcast and 1-D operands", () => {
    for (const [a, b] of [
      [
        [5, 7],
        [7, 9],
      ],
      [
        [2, 3, 13, 8],
        [8, 11],
      ],
      [
        [3, 1, 6, 5],
        [4, 5, 7],
      ],
      [[9], [9, 6]],
      [[4, 9], [9]],
    ] as [number[], number[]][])
      expectSameBits({ op: "MatMul", inputs: [rand(dt, a, 6), rand(dt, b, 7)] });
  });

  it("Gemm: transposes, alpha, beta and C", () => {
    for (const [transA, transB] of [
      [0, 0],
      [1, 0],
      [0, 1],
      [1, 1],
    ])
      expectSameBits({
        op: "Gemm",
        inputs: [
          rand(dt, transA ? [6, 10] : [10, 6], 8),
          rand(dt, transB ? [7, 6] : [6, 7], 9),
          rand(dt, [7], 10),
        ],
        attrs: { transA, transB, alpha: 0.7, beta: 1.3 },
      });
  });

  it("ConvTranspose with disjoint taps (stride ≥ kernel), finite weights", () => {
    expectSameBits({
      op: "ConvTranspose",
      inputs: [rand(dt, [2, 6, 5, 4], 11), rand(dt, [6, 3, 2, 2], 12, 0), rand(dt, [3], 13, 0)],
      attrs: { strides: [2, 2] },
    });
    expectSameBits({
      op: "ConvTranspose",
      inputs: [rand(dt, [1, 4, 3, 5], 14), rand(dt, [4, 5, 2, 3], 15, 0)],
      attrs: { strides: [3, 3], pads: [1, 0, 0, 1] },
    });
  });

  it("the same bits on two threads, and with initializer weights packed once per run", async () => {
    setGemmThreads(2, 0);
    expect(await gemmHelpersReady(gemmArena()!)).toBe(true);
    expectSameBits({
      op: "Conv",
      inputs: [rand(dt, [1, 6, 30, 30], 16), rand(dt, [10, 6, 3, 3], 17), rand(dt, [10], 18)],
      attrs: { pads: [1, 1, 1, 1] },
    });
    expectSameBits({ op: "MatMul", inputs: [rand(dt, [130, 300], 19), rand(dt, [300, 37], 20)] });
    const w = rand(dt, [8, 6, 3, 3], 21);
    const g = graph({
      nodes: [node("Conv", ["x", "w"], ["y"], { pads: [1, 1, 1, 1] })],
      inputs: [valueInfo("x", dt, [1, 6, 12, 12])],
      outputs: [valueInfo("y")],
      initializers: [Tensor.from(dt, [8, 6, 3, 3], w.data as Uint16Array, "w")],
    });
    const m = model(g, 18);
    const x = rand(dt, [1, 6, 12, 12], 22);
    const fast = [run(m, { x }).y!, run(m, { x }).y!];
    setGemmDisabled(true);
    const slow = run(m, { x }).y!;
    setGemmDisabled(false);
    for (const f of fast)
      expect(Array.from(f.data as Uint16Array)).toEqual(Array.from(slow.data as Uint16Array));
  });
});

/** A half tensor's values (NaN as NaN). */
function values(t: RTensor): number[] {
  const d = t.data as Uint16Array;
  return Array.from(d, (h) =>
    t.dtype === DataType.FLOAT16
      ? f16Value(h)
      : new Float32Array(new Uint32Array([h << 16]).buffer)[0]!,
  );
}

describe.each(HALVES)("%s Conv and MatMul sum in float32", (_name, dt) => {
  const enc = dt === DataType.FLOAT16 ? numberToFloat16Bits : numberToBfloat16Bits;
  /** The sum of products in order from `start`, each product and partial sum rounded to float32. */
  const sum32 = (start: number, terms: [number, number][]) =>
    terms.reduce((s, [a, b]) => Math.fround(s + Math.fround(a * b)), start);
  const expectBits = (got: RTensor, want: number[]) =>
    expect(Array.from(got.data as Uint16Array)).toEqual(
      want.map((v) => (Number.isNaN(v) ? (dt === DataType.FLOAT16 ? 0x7e00 : 0x7fc0) : enc(v))),
    );

  it("MatMul: the float32 sums rounded once (not the float64 sums), wasm and loop alike", () => {
    // Finite values only (a NaN's bits are fixed by the kernels), K long enough for the float32
    // sums to differ from the float64 ones in some outputs.
    const [M, K, N] = [24, 300, 20];
    const a = rand(dt, [M, K], 31, 0);
    const b = rand(dt, [K, N], 32, 0);
    const [av, bv] = [values(a), values(b)];
    const want: number[] = [];
    let differ = 0;
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        const terms = Array.from(
          { length: K },
          (_, t) => [av[i * K + t]!, bv[t * N + j]!] as [number, number],
        );
        const s = sum32(0, terms);
        want.push(s);
        if (enc(s) !== enc(terms.reduce((x, [p, q]) => x + p * q, 0))) differ++;
      }
    // float16 (11 bits): some outputs round differently from the float64 sums, so the test
    // tells the two apart; bfloat16's 8 bits hide the difference at this size.
    if (dt === DataType.FLOAT16) expect(differ).toBeGreaterThan(0);
    const [fast, general] = fastAndGeneral({ op: "MatMul", inputs: [a, b] });
    expectBits(fast, want);
    expectBits(general, want);
  });

  it("Conv: from the bias, channels then taps in order", () => {
    const x = rand(dt, [1, 3, 5, 5], 33, 0);
    const w = rand(dt, [4, 3, 3, 3], 34, 0);
    const bias = rand(dt, [4], 35, 0);
    const [xv, wv, bb] = [values(x), values(w), values(bias)];
    const want: number[] = [];
    for (let oc = 0; oc < 4; oc++)
      for (let oh = 0; oh < 3; oh++)
        for (let ow = 0; ow < 3; ow++) {
          const terms: [number, number][] = [];
          for (let ic = 0; ic < 3; ic++)
            for (let kh = 0; kh < 3; kh++)
              for (let kw = 0; kw < 3; kw++)
                terms.push([
                  xv[(ic * 5 + oh + kh) * 5 + ow + kw]!,
                  wv[((oc * 3 + ic) * 3 + kh) * 3 + kw]!,
                ]);
          want.push(sum32(bb[oc]!, terms));
        }
    const [fast, general] = fastAndGeneral({ op: "Conv", inputs: [x, w, bias] });
    expectBits(fast, want);
    expectBits(general, want);
  });
});

function f16Value(h: number): number {
  const e = (h >> 10) & 31;
  const f = h & 0x3ff;
  const v =
    e === 0 ? f * 2 ** -24 : e === 31 ? (f ? NaN : Infinity) : (1 + f / 1024) * 2 ** (e - 15);
  return h & 0x8000 ? -v : v;
}
