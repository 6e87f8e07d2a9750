// Every allocation and every call counted before it is made: random inputs and decoded input
// files against run's --max-memory, the nodes a run would execute against --max-nodes (counted
// before it starts), folded constants against simplify's --max-memory.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runModels } from "../../src/app/runnable.js";
import { randomInputs } from "../../src/app/random-inputs.js";
import { simplify } from "../../src/app/transform.js";
import { executedNodes } from "../../src/interp/call-count.js";
import { run } from "../../src/interp/executor.js";
import { modelFunctions } from "../../src/check/functions.js";
import { parseModelText } from "../../src/text/parse.js";
import { bombText } from "../../scripts/fuzz/bombs.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const RELU = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[n] x) => (float[n] y) {
  y = Relu (x)
}`);

describe("inputs under the run's memory budget", () => {
  it("random inputs past --max-memory are refused before they are made", () => {
    const dims = new Map([["n", 1_000_000_000]]);
    expect(() =>
      runModels([{ name: "m", model: RELU }], () => randomInputs(RELU, 0, dims), {
        maxMemory: 512 * 2 ** 20,
      }),
    ).toThrow(/random input 'x' \[1000000000\]: needs .* over the memory budget of .*--max-memory/);
    // A dim past what an array can hold is the same refusal, not an internal error.
    expect(() =>
      runModels([{ name: "m", model: RELU }], () => randomInputs(RELU, 0, new Map([["n", 1e14]])), {
        maxMemory: 512 * 2 ** 20,
      }),
    ).toThrow(/random input 'x'.*over the memory budget/);
    // Within the budget the run is as before.
    const small = runModels(
      [{ name: "m", model: RELU }],
      () => randomInputs(RELU, 0, new Map([["n", 1000]])),
      { maxMemory: 512 * 2 ** 20 },
    );
    expect(small.outputs[0]!.y).toBeDefined();
  });

  it("the command line: --random and an input file past --max-memory, one line each", () => {
    const d = mkdtempSync(join(tmpdir(), "onnx-expand-budgets-"));
    const model = join(d, "m.onnxtxt");
    writeFileSync(
      model,
      `<ir_version: 8, opset_import: ["" : 13]>\ng (float[n] x) => (float[n] y) {\n  y = Relu (x)\n}\n`,
    );
    expectOneLineError(
      runCli(["run", model, "--random", "--dim", "n=1000000000", "--max-memory", "512M"]),
      /random input 'x' \[1000000000\]: needs 8000000000 bytes .*over the memory budget of 536870912 bytes/,
    );
    // A 40 MB .npy against a 16 MiB budget: refused by its size, before it is read.
    const header = "{'descr': '<f4', 'fortran_order': False, 'shape': (10000000,), }";
    const head = Buffer.from(`\x93NUMPY\x01\x00`, "latin1");
    const len = Buffer.alloc(2);
    len.writeUInt16LE(118);
    writeFileSync(
      join(d, "x.npy"),
      Buffer.concat([head, len, Buffer.from(header.padEnd(117) + "\n"), Buffer.alloc(40_000_000)]),
    );
    expectOneLineError(
      runCli(["run", model, join(d, "x.npy"), "--max-memory", "16M"]),
      /x\.npy: needs 40000128 bytes .* for the input file .*over the memory budget of 16777216 bytes/,
    );
  }, 120_000);
});

describe("a run counts its calls before it starts", () => {
  const bomb = parseModelText(bombText({ depth: 30, fanout: 2, leafNodes: 1, graphCalls: 1 }));

  it("2^30 calls are counted, not made, and refused at once by --max-nodes", () => {
    expect(executedNodes(bomb, modelFunctions(bomb))).toBe(2 ** 30);
    const x = { dtype: 1, shape: [2], data: new Float32Array(2) };
    const t0 = Date.now();
    expect(() => run(bomb, { x })).toThrow(
      /^the run would execute 1,073,741,824 nodes \(calls of local functions counted out\), over --max-nodes 10,000,000/,
    );
    expect(Date.now() - t0).toBeLessThan(5000);
    // Below the bound, a bomb runs: 2^10 calls of Neg is the input itself.
    const small = parseModelText(bombText({ depth: 10, fanout: 2, leafNodes: 1, graphCalls: 1 }));
    const y = run(small, { x: { dtype: 1, shape: [2], data: Float32Array.of(1, -2) } });
    expect(Array.from(y.y!.data as Float32Array)).toEqual([1, -2]);
    expect(() =>
      run(small, { x: { dtype: 1, shape: [2], data: Float32Array.of(1, -2) } }, { maxNodes: 1000 }),
    ).toThrow(/would execute 1,024 nodes .* over --max-nodes 1,000/);
  });

  it("run --random refuses the bomb in one line naming --max-nodes", () => {
    const d = mkdtempSync(join(tmpdir(), "onnx-expand-budgets-"));
    const file = join(d, "bomb.onnxtxt");
    writeFileSync(file, bombText({ depth: 30, fanout: 2, leafNodes: 1, graphCalls: 1 }));
    expectOneLineError(
      runCli(["run", file, "--random"], { timeout: 60_000 }),
      /would execute 1,073,741,824 nodes .*over --max-nodes 10,000,000, which raises the limit$/,
    );
  }, 120_000);
});

describe("folded constants under --max-memory", () => {
  it("a Concat-doubling chain folds until the budget, then stops with a warning", () => {
    const lines = ["  c0 = Constant <value = float[4] {1,2,3,4}> ()"];
    for (let k = 0; k < 40; k++) lines.push(`  c${k + 1} = Concat <axis = 0> (c${k}, c${k})`);
    const m = parseModelText(
      `<ir_version: 8, opset_import: ["" : 13]>\ng (float[1] x) => (float[?] y) {\n${lines.join("\n")}\n  y = Add (x, c40)\n}`,
    );
    const r = simplify(m, { foldLimit: 2 ** 40, maxMemory: 16 * 2 ** 20 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const bytes = r.model.graph.initializers.reduce((s, t) => s + t.byteLength, 0);
    expect(bytes).toBeLessThanOrEqual(16 * 2 ** 20);
    expect(r.model.graph.nodes.some((n) => n.opType === "Concat")).toBe(true);
    expect(r.notes.map((n) => n.message).join("\n")).toMatch(
      /not folded: .*needs .* over the memory budget .*--max-memory/,
    );
  });
});
