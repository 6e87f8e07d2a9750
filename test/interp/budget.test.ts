// The memory budget's accounting, and a guard that kernels allocate only through allocStorage or
// scratch (both counted), so a new kernel cannot bypass the budget unnoticed.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MemoryBudget } from "../../src/interp/budget.js";
import { OnnxError } from "../../src/errors.js";
import { f32, runOne } from "../helpers/interp.js";

const kernels = fileURLToPath(new URL("../../src/interp/kernels/", import.meta.url));

/** Allocations whose size does not come from the model's data: per-step rows inside a loop. */
const ALLOWED = new Set(["recurrent.ts: new Float64Array(H)"]);

describe("memory budget", () => {
  it("counts a storage once however many values hold it, and frees it with the last", () => {
    const b = new MemoryBudget(1000, 1000);
    const t = f32([100], new Array(100).fill(1));
    b.hold(t);
    b.hold({ ...t, shape: [10, 10] }); // a view (Reshape) shares the storage
    expect(b.used).toBe(400);
    b.release(t);
    expect(b.used).toBe(400);
    b.release(t);
    expect(b.used).toBe(0);
  });

  it("charges a kernel's allocations until it ends, and refuses what would go over", () => {
    const b = new MemoryBudget(1000, 1000);
    const mark = b.enter();
    b.charge(600);
    expect(() => b.charge(600, false, "600 elements of uint8")).toThrow(
      /needs 600 bytes for 600 elements of uint8 with 600 bytes already held, over the memory budget of 1000 bytes/,
    );
    b.leave(mark);
    expect(b.used).toBe(0);
    const heap = new MemoryBudget(1_000_000, 1000);
    expect(() => heap.charge(10, true)).not.toThrow();
    expect(() => heap.charge(995, true)).toThrow(/of JavaScript heap .*heap budget of 1000 bytes/);
  });

  it("a run within the budget succeeds; one over it fails naming the node", () => {
    const x = f32([1000], new Array(1000).fill(1));
    expect(runOne({ op: "Add", inputs: [x, x] }, { maxMemory: 100_000 })).toHaveLength(1);
    expect(() => runOne({ op: "Add", inputs: [x, x] }, { maxMemory: 5000 })).toThrow(OnnxError);
    expect(() => runOne({ op: "Add", inputs: [x, x] }, { maxMemory: 5000 })).toThrow(
      /^node .*\(Add\): needs 4000 bytes .*over the memory budget of 5000 bytes/,
    );
  });

  it("kernels allocate typed arrays only through allocStorage or scratch", () => {
    const unchecked: string[] = [];
    const re =
      /new (?:Float32|Float64|Int8|Uint8|Int16|Uint16|Int32|Uint32|BigInt64|BigUint64)Array\(([^(),]*(?:\([^()]*\))?[^(),]*)\)/g;
    const files = [
      ...readdirSync(kernels).filter((n) => n.endsWith(".ts")),
      ...readdirSync(join(kernels, "contrib")).map((n) => `contrib/${n}`),
    ];
    for (const f of files) {
      for (const m of readFileSync(join(kernels, f), "utf8").matchAll(re)) {
        const arg = m[1]!.trim();
        // Literal sizes, copies of small literal lists, and views of existing buffers are fine.
        if (/^\d+$/.test(arg) || arg.startsWith("[") || arg.endsWith(".buffer") || arg === "acc")
          continue;
        const site = `${f}: ${m[0]}`;
        if (!ALLOWED.has(site)) unchecked.push(site);
      }
    }
    expect(unchecked).toEqual([]);
  });
});
