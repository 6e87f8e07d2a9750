// float32 reductions read in place from a tensor's own WebAssembly memory, on one thread and
// (row reductions) on two (kernels/wasm/rows.ts): they must give the results of the copying path and of the
// scalar TypeScript reference for every row layout, and the helper thread must never keep a
// process alive.

import { spawnSync } from "node:child_process";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { DataType } from "../../src/ir/types.js";
import {
  lastReduceWasmPath,
  runReduce,
  setReduceThreads,
  setReduceWasmEnabled,
  type ReduceOp,
} from "../../src/interp/kernels/reduce.js";
import { allocWasmBacked, wasmMemoryOf } from "../../src/interp/kernels/wasm/memory.js";
import { helperReady, helperStats, setHelperOnly } from "../../src/interp/kernels/wasm/rows.js";
import { allocStorage, WASM_BACKED_MIN_ELEMENTS } from "../../src/interp/tensor.js";
import type { RTensor } from "../../src/interp/types.js";
import { axesT, ctxFor } from "../helpers/reduce.js";

/** A float32 tensor in a WebAssembly memory of its own, starting `offset` elements in. */
function wasmBacked(shape: number[], seed: number, offset = 0): RTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  const buf = allocWasmBacked((n + offset) * 4)!;
  const data = new Float32Array(buf, offset * 4, n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    data[i] = (s / 2 ** 32) * 8 - 3; // mixed signs, so that sums cancel
  }
  return { dtype: DataType.FLOAT, shape, data };
}

function plainCopy(t: RTensor): RTensor {
  return { ...t, data: new Float32Array(t.data as Float32Array) };
}

const OPS: ReduceOp[] = ["Sum", "Mean", "L1", "L2", "SumSquare", "LogSum"];

function reduce(op: ReduceOp, x: RTensor, axes: number[], keepdims = 0): Float32Array {
  const ctx = ctxFor(`Reduce${op}`, 18, { keepdims });
  return runReduce(ctx, op, x, axesT(axes)).data as Float32Array;
}

/** The scalar TypeScript path (float64 accumulation in order, rounded once). */
function reference(op: ReduceOp, x: RTensor, axes: number[], keepdims = 0): Float32Array {
  setReduceWasmEnabled(false);
  try {
    return reduce(op, x, axes, keepdims);
  } finally {
    setReduceWasmEnabled(true);
  }
}

/** Within one float32 ulp (the SIMD paths add in another order than the reference). */
function expectClose(got: Float32Array, want: Float32Array): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    if (Number.isNaN(w)) expect(got[i]).toBeNaN();
    else expect(Math.abs(got[i]! - w)).toBeLessThanOrEqual(Math.abs(w) * 2 ** -23);
  }
}

// Row layouts: one row, odd row counts, row lengths not divisible by 4 or 16, more rows than fit
// one task's results (4096), rows longer than one task (2^17 values, cut into pieces), and a
// whole-tensor reduction.
const CASES: { shape: number[]; axes: number[] }[] = [
  { shape: [1, 5000], axes: [1] },
  { shape: [3, 1501], axes: [-1] },
  { shape: [7, 13, 57], axes: [2] },
  { shape: [9001, 3], axes: [1] },
  { shape: [5, 2, 433], axes: [1, 2] },
  { shape: [3, 300_001], axes: [1] },
  { shape: [262_147], axes: [0] },
  { shape: [2, 3, 1, 700], axes: [] },
];

afterEach(() => {
  setReduceThreads(true);
  setHelperOnly(false);
  setReduceWasmEnabled(true);
});

describe("wasm-backed tensors", () => {
  it("allocStorage puts large float32 tensors in a WebAssembly memory, zero-filled", () => {
    const big = allocStorage(DataType.FLOAT, WASM_BACKED_MIN_ELEMENTS) as Float32Array;
    expect(big).toBeInstanceOf(Float32Array);
    expect(big.length).toBe(WASM_BACKED_MIN_ELEMENTS);
    expect(big.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(wasmMemoryOf(big.buffer)).toBeDefined();
    expect(big.every((v) => v === 0)).toBe(true);
    const small = allocStorage(DataType.FLOAT, 1000) as Float32Array;
    expect(small.buffer).toBeInstanceOf(ArrayBuffer);
    expect(wasmMemoryOf(small.buffer)).toBeUndefined();
  });

  it("a large reduction of an allocStorage tensor reads it in place", () => {
    const x = allocStorage(DataType.FLOAT, 2 * WASM_BACKED_MIN_ELEMENTS) as Float32Array;
    for (let i = 0; i < x.length; i++) x[i] = (i % 7) - 3;
    const t: RTensor = { dtype: DataType.FLOAT, shape: [2, WASM_BACKED_MIN_ELEMENTS], data: x };
    setReduceThreads(false);
    const got = reduce("Sum", t, [1]);
    expect(lastReduceWasmPath()).toBe("direct");
    expectClose(got, reference("Sum", t, [1]));
  });
});

describe("row reductions in place, one thread", () => {
  for (const { shape, axes } of CASES)
    it(`[${shape}] axes [${axes}]: every op agrees with the reference and the copying path`, () => {
      setReduceThreads(false);
      const x = wasmBacked(shape, shape.length * 7 + 1, 3); // byteOffset 12: not at address 0
      for (const op of OPS) {
        const got = reduce(op, x, axes);
        expect(lastReduceWasmPath()).toBe("direct");
        expectClose(got, reference(op, x, axes));
        expect(reduce(op, plainCopy(x), axes)).toEqual(got);
        expect(lastReduceWasmPath()).toBe("copy");
      }
    });
});

// Reductions over leading axes (column sums) read in place too: rows not divisible by 4, more
// columns than one accumulator window (4096), reduced axes in the middle.
const COLUMN_CASES: { shape: number[]; axes: number[] }[] = [
  { shape: [1001, 7], axes: [0] },
  { shape: [5, 3000], axes: [0] },
  { shape: [3, 9000], axes: [0] },
  { shape: [7, 301, 5], axes: [1] },
  { shape: [2, 6, 4099], axes: [0, 1] },
];

describe("column reductions in place", () => {
  for (const { shape, axes } of COLUMN_CASES)
    it(`[${shape}] axes [${axes}]: every op agrees with the reference and the copying path`, () => {
      const x = wasmBacked(shape, shape[0]! + 11, 2);
      for (const op of OPS) {
        const got = reduce(op, x, axes, 1);
        expect(lastReduceWasmPath()).toBe("direct");
        expectClose(got, reference(op, x, axes, 1));
        expect(reduce(op, plainCopy(x), axes, 1)).toEqual(got);
        expect(lastReduceWasmPath()).toBe("copy");
      }
    });
});

describe("row reductions on two threads", () => {
  beforeAll(async () => {
    setReduceThreads(true, 0);
    reduce("Sum", wasmBacked([4, 100_000], 1), [1]); // starts the helper
    expect(await helperReady()).toBe(true);
  });

  for (const { shape, axes } of CASES)
    it(`[${shape}] axes [${axes}]: the same results as one thread, helper or not`, () => {
      const x = wasmBacked(shape, shape.length * 5 + 2, 1);
      for (const op of OPS) {
        setReduceThreads(false);
        const one = reduce(op, x, axes, 1);
        setReduceThreads(true, 0);
        const two = reduce(op, x, axes, 1);
        const path = lastReduceWasmPath();
        // A single task needs no helper.
        expect(path === "threads" || path === "direct").toBe(true);
        expect(two).toEqual(one);
        // Every task on the helper thread: its copy of the task code must agree too.
        setHelperOnly(true);
        const before = helperStats().tasks;
        const helped = reduce(op, x, axes, 1);
        if (lastReduceWasmPath() === "threads") expect(helperStats().tasks).toBeGreaterThan(before);
        // A plain input: staged through the shared ring, by both threads, then by the helper alone.
        setHelperOnly(false);
        const plain = plainCopy(x);
        expect(reduce(op, plain, axes, 1)).toEqual(one);
        expect(["staged", "copy"]).toContain(lastReduceWasmPath());
        setHelperOnly(true);
        expect(reduce(op, plain, axes, 1)).toEqual(one);
        setHelperOnly(false);
        expect(helped).toEqual(one);
        expectClose(one, reference(op, x, axes, 1));
      }
    });

  for (const { shape, axes } of COLUMN_CASES)
    it(`columns [${shape}] axes [${axes}]: the same results as one thread, helper or not`, () => {
      const x = wasmBacked(shape, shape[1]! + 3, 1);
      for (const op of OPS) {
        setReduceThreads(false);
        const one = reduce(op, x, axes);
        expect(lastReduceWasmPath()).toBe("direct");
        setReduceThreads(true, 0);
        expect(reduce(op, x, axes)).toEqual(one);
        const path = lastReduceWasmPath();
        expect(path === "threads" || path === "direct").toBe(true);
        setHelperOnly(true);
        const before = helperStats().tasks;
        expect(reduce(op, x, axes)).toEqual(one);
        if (lastReduceWasmPath() === "threads") expect(helperStats().tasks).toBeGreaterThan(before);
        setHelperOnly(false);
      }
    });

  it("a helper-only run of many tasks uses the helper for each", () => {
    setReduceThreads(true, 0);
    setHelperOnly(true);
    const x = wasmBacked([64, 16_384], 9); // 8 tasks of 8 rows
    const before = helperStats().tasks;
    const got = reduce("Sum", x, [1]);
    expect(lastReduceWasmPath()).toBe("threads");
    expect(helperStats().tasks - before).toBe(8);
    expectClose(got, reference("Sum", x, [1]));
  });

  it("a plain input is staged through shared memory: more tasks than slots, helper or not", () => {
    const x = plainCopy(wasmBacked([40, 70_001], 4)); // 40 tasks, 8 slots
    const want = reference("L1", x, [1]);
    setReduceThreads(false);
    const single = reduce("L1", x, [1]);
    expect(lastReduceWasmPath()).toBe("copy");
    setReduceThreads(true, 0);
    expect(reduce("L1", x, [1])).toEqual(single);
    expect(lastReduceWasmPath()).toBe("staged");
    setHelperOnly(true);
    const before = helperStats().tasks;
    expect(reduce("L1", x, [1])).toEqual(single);
    expect(helperStats().tasks - before).toBe(40);
    expectClose(single, want);
  });

  it("one input reduced repeatedly, alternating with others, keeps agreeing", () => {
    setReduceThreads(true, 0);
    const a = wasmBacked([33, 9_999], 21);
    const b = wasmBacked([8, 50_000], 22, 5);
    const ra = reference("Sum", a, [1]);
    const rb = reference("SumSquare", b, [1]);
    for (let i = 0; i < 20; i++) {
      expectClose(reduce("Sum", a, [1]), ra);
      expectClose(reduce("SumSquare", b, [1]), rb);
    }
  });
});

describe("the helper thread and process exit", () => {
  it("a process that used the threaded path exits by itself", () => {
    const script = `
      import { allocStorage } from "./src/interp/tensor.ts";
      import { runReduce } from "./src/interp/kernels/reduce.ts";
      import { helperReady, helperStats } from "./src/interp/kernels/wasm/rows.ts";
      import { node } from "./src/ir/builder.ts";
      const x = allocStorage(1, 4_000_000);
      x.fill(0.5);
      const ctx = { node: node("ReduceSum", ["x"], ["y"], { keepdims: 0 }), opset: 18, label: "r", maxElements: 2 ** 31 };
      const axes = { dtype: 7, shape: [1], data: new BigInt64Array([1n]) };
      const t = { dtype: 1, shape: [400, 10_000], data: x };
      runReduce(ctx, "Sum", t, axes);
      await helperReady();
      let y;
      for (let i = 0; i < 50; i++) y = runReduce(ctx, "Sum", t, axes);
      console.log(y.data[0], y.data[399], helperStats().ready);
    `;
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: process.cwd(),
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(r.error).toBeUndefined();
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe("5000 5000 true");
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
