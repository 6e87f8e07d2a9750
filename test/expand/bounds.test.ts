// The bound on expansion (src/inline/bounds.ts): the nodes a result will have are counted before
// any inlining, and a count over --max-nodes or over the byte budget is refused with one line
// naming the function or op and the count, exit 2, nothing written. Bombs from the fuzz
// generator (scripts/fuzz/bombs.ts).

import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bombSize, bombText, type BombShape } from "../../scripts/fuzz/bombs.js";
import { runCampaign } from "../../scripts/fuzz/campaign.js";
import { BYTES_PER_NODE, nodeBudget } from "../../src/inline/bounds.js";
import { inlinedCount } from "../../src/expand/inline-local-functions.js";
import { expandPipeline } from "../../src/expand/pipeline.js";
import { runPass } from "../../src/passes/manager.js";
import { passContext } from "../../src/passes/pass.js";
import { parseModelText } from "../../src/text/parse.js";
import { expectOneLineError, runCli } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "onnx-expand-bounds-"));
let files = 0;
function file(text: string): string {
  const p = join(dir, `m${files++}.onnxtxt`);
  writeFileSync(p, text);
  return p;
}
const doubling = (k: number): BombShape => ({ depth: k, fanout: 2, leafNodes: 1, graphCalls: 1 });

/** Runs `expand -o` on a model: the result and whether the output file was written. */
function expand(text: string, ...opts: string[]) {
  const input = file(text);
  const out = `${input}.out.onnx`;
  const r = runCli(["expand", input, "-o", out, ...opts], { timeout: 60_000 });
  return { ...r, written: existsSync(out) };
}

/** A model whose graph calls a local function of `size` nodes `calls` times. */
const leafCalls = (size: number, calls: number) =>
  bombText({ depth: 0, fanout: 1, leafNodes: size, graphCalls: calls });

describe("expand: the bound on the nodes a result will have", () => {
  it("counts a doubling bomb on the call graph, exactly, before any inlining", () => {
    for (const k of [16, 20, 30, 40]) {
      const m = parseModelText(bombText(doubling(k)));
      // Counted on the call graph: at k = 40 no walk of the inlined nodes (2^41) could end.
      const count = inlinedCount(m, () => true);
      // The graph's 2^k nodes, and f_1 ... f_k with theirs inlined (2^1 + ... + 2^k).
      expect(count.total).toBe(2 ** k + (2 ** (k + 1) - 2));
      expect(count.top).toEqual({ what: `function 'local.f${k}'`, calls: 1, nodes: 2 ** k });
      // At depth 16 the result (65,536 nodes) is within the default limits: a lower one.
      const r = runPass(expandPipeline({ maxNodes: 100_000 }), m, passContext());
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.stage).toBe("requires");
    }
  });

  it("counts only the selected functions: a kept one stays one node a call", () => {
    const m = parseModelText(bombText({ depth: 3, fanout: 2, leafNodes: 5, graphCalls: 1 }));
    // All inlined: the graph's 8 x 5 nodes, and f1, f2, f3 with theirs (10 + 20 + 40).
    expect(inlinedCount(m, () => true).total).toBe(110);
    // f0 kept: its calls stay (one node each): the graph's 8, f2's 4 and f3's 8 (f1 holds no
    // selected call: it is not rebuilt).
    expect(inlinedCount(m, (f) => f.name !== "f0").total).toBe(20);
    // f3 kept: the graph keeps its one call, f3 is built with its calls inlined (40), f1 and f2
    // too (10 + 20).
    expect(inlinedCount(m, (f) => f.name !== "f3").total).toBe(71);
    const r = runPass(expandPipeline({ maxNodes: 70, keep: [{ domain: "local", op: "f3" }] }), m);
    expect(r.ok).toBe(false);
    expect(
      runPass(expandPipeline({ maxNodes: 20, keep: [{ domain: "local", op: "f0" }] }), m).ok,
    ).toBe(true);
  });

  it("a sample of the bombs campaign ends without a crash or a heap overrun", async () => {
    const s = await runCampaign({
      command: "expand",
      generator: "bombs",
      count: 4,
      seed: 5,
      jobs: 2,
    });
    expect(s.inputs).toBe(4);
    expect(s.findings.filter((f) => f.outcome !== "hang")).toEqual([]);
  }, 300_000);

  it("refuses doubling bombs at depth 16, 20, 30 and 40 with one line, exit 2, nothing written", () => {
    // At depth 16 the result (65,536 nodes) is within the default limits: a lower --max-nodes.
    const r16 = expand(bombText(doubling(16)), "--max-nodes", "100000");
    expectOneLineError(
      r16,
      /expanding would make 196,606 nodes, over --max-nodes 100,000, which raises the limit; function 'local\.f16' alone makes 65,536 of them \(1 call\)$/,
    );
    expect(r16.written).toBe(false);
    // Depth 20: 3,145,726 nodes, under --max-nodes but over the heap budget.
    const r20 = expand(bombText(doubling(20)));
    expectOneLineError(
      r20,
      /expanding would make 3,145,726 nodes, about 2\.3 GiB of heap at 800 bytes a node, over the budget of .* GiB \(50% of the V8 heap limit; node --max-old-space-size raises it\); function 'local\.f20' alone makes 1,048,576 of them \(1 call\)$/,
    );
    expect(r20.written).toBe(false);
    for (const k of [30, 40]) {
      const r = expand(bombText(doubling(k)));
      expectOneLineError(
        r,
        new RegExp(
          `expanding would make ${(2 ** k + 2 ** (k + 1) - 2).toLocaleString("en-US")} nodes, over --max-nodes 10,000,000, which raises the limit; function 'local\\.f${k}' alone`,
        ),
      );
      expect(r.written).toBe(false);
    }
  }, 120_000);

  it("refuses a 100,000-node function called 1,000 times (no heap abort)", () => {
    const r = expand(leafCalls(100_000, 1000));
    expectOneLineError(
      r,
      /expanding would make 100,000,000 nodes, over --max-nodes 10,000,000, which raises the limit; function 'local\.f0' alone makes 100,000,000 of them \(1,000 calls\)$/,
    );
    expect(r.written).toBe(false);
  }, 60_000);

  it("expands a chain of 200 functions each calling the next once", () => {
    const shape = { depth: 200, fanout: 1, leafNodes: 1, graphCalls: 1 };
    expect(bombSize(shape)).toBe(1);
    const r = expand(bombText(shape));
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/expanded 201 calls/);
  }, 60_000);

  it("--max-nodes moves the limit: a model at the limit expands, one node over is refused", () => {
    const text = leafCalls(10, 5); // 50 nodes once inlined
    const at = expand(text, "--max-nodes", "50");
    expect(at.code).toBe(0);
    expect(at.written).toBe(true);
    const over = expand(text, "--max-nodes", "49");
    expectOneLineError(over, /expanding would make 50 nodes, over --max-nodes 49/);
    expect(over.written).toBe(false);
    expectOneLineError(
      runCli(["expand", file(text), "--print", "--max-nodes", "x"]),
      /--max-nodes/,
    );
  }, 60_000);

  it("counts schema function ops by their bodies, nested ones included (Celu -> Elu)", () => {
    const lines = Array.from(
      { length: 1000 },
      (_, i) =>
        `  ${i === 999 ? "y" : `v${i}`} = Celu <alpha: float = 2.0> (${i ? `v${i - 1}` : "x"})`,
    );
    const text = `<ir_version: 8, opset_import: ["" : 18]>\ng (float[2] x) => (float[2] y) {\n${lines.join("\n")}\n}\n`;
    // Celu-12's body is 11 nodes once its call of Elu is expanded.
    const r = expand(text, "--max-nodes", "10999");
    expectOneLineError(
      r,
      /expanding would make 11,000 nodes, over --max-nodes 10,999, which raises the limit; Celu-12 alone makes 11,000 of them \(1,000 calls\)$/,
    );
    expect(expand(text, "--max-nodes", "11000").code).toBe(0);
    // Only what is selected counts: with Elu kept, Celu's body is its own nodes and the Elu call.
    const kept = expand(text, "--max-nodes", "1000", "--keep", "Elu");
    expect(kept.stderr).toMatch(/expanding would make [\d,]+ nodes/);
    expect(kept.stderr).not.toMatch(/11,000/);
  }, 60_000);

  it("--max-memory lowers the byte budget, never raises it above the heap share", () => {
    const text = leafCalls(10, 5000); // 50,000 nodes
    const r = expand(text, "--max-memory", "1M");
    expectOneLineError(
      r,
      /expanding would make 50,000 nodes, about 38\.1 MiB of heap at 800 bytes a node, over the budget of 1\.0 MiB \(--max-memory\)/,
    );
    expect(nodeBudget({ maxMemory: 2 ** 60 }).bytesFrom).toBe("heap");
    expect(nodeBudget({ maxMemory: 2 ** 20 }).maxBytes).toBe(2 ** 20);
    expect(BYTES_PER_NODE).toBeGreaterThan(0);
  }, 60_000);
});
