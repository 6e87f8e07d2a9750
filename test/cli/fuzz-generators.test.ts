// The fuzz campaign's generators for hostile files: huge flat models, and special output paths
// with the judgement of what a command left there.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hugeFlat } from "../../scripts/fuzz/flat.js";
import { OUTPUT_KINDS, judgeOutput, prepareOutput } from "../../scripts/fuzz/paths.js";
import { seededRandom } from "../../src/interp/random.js";
import { decodeModel } from "../../src/io/codec.js";

describe("fuzz generators", () => {
  it("hugeFlat gives one node 100k+ inputs or the graph 100k+ initializers", () => {
    const bytes = readFileSync("examples/reduce-13.onnx");
    for (let seed = 1; seed <= 4; seed++) {
      const m = decodeModel(hugeFlat(bytes, seededRandom(seed)));
      const widest = m.graph.nodes.reduce((w, n) => Math.max(w, n.inputs.length), 0);
      expect(widest >= 100_000 || m.graph.initializers.length >= 100_000).toBe(true);
    }
    expect(hugeFlat(Uint8Array.of(0xff), seededRandom(1))).toEqual(Uint8Array.of(0xff));
  });

  it("an untouched special output passes; a replaced one or a temporary file left is a finding", () => {
    const dir = mkdtempSync(join(tmpdir(), "onnx-expand-fuzz-paths-"));
    const out = join(dir, "out.onnx");
    for (const kind of OUTPUT_KINDS) {
      const made = prepareOutput(dir, out, kind);
      expect(judgeOutput(dir, out, made, 2), kind).toBeUndefined();
    }
    expect(prepareOutput(dir, out, "fifo")).toBe("fifo");
    rmSync(out);
    writeFileSync(out, "new");
    expect(judgeOutput(dir, out, "fifo", 0)).toBe("fifo output was replaced");
    prepareOutput(dir, out, "link-to-file");
    expect(judgeOutput(dir, out, "link-to-file", 0)).toMatch(/kept as a link/);
    writeFileSync(join(dir, `.oe${process.pid}.abc.tmp`), "");
    expect(judgeOutput(dir, out, "none", 0)).toMatch(/temporary file left behind/);
  });
});
