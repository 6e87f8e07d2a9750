// The command line and the page load and check through one seam (src/app: acceptModel,
// checkLoaded): every hostile model of the tests gets the same verdict from `onnx-expand check`
// (and the CLI's loadModel) as from the library's Session, as the page's worker drives it.

import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Session, checkLoaded, modelFiles, type ModelCheck } from "../../src/app/index.js";
import { formatProblem } from "../../src/check/index.js";
import { RULES } from "../../src/check/rules/index.js";
import { loadModel } from "../../src/cli/util.js";
import { OnnxError } from "../../src/errors.js";
import { encodeModel } from "../../src/io/codec.js";
import { loadModel as loadModelFile, saveModel } from "../../src/io/files.js";
import { Tensor } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { isRangePiece } from "../../src/proto/writer.js";
import { parseModelText } from "../../src/text/parse.js";
import { runCli } from "../helpers/cli.js";
import { OPSET_IMPORT_CASES, malformedVariants, prng } from "../helpers/hostile.js";

const BROKEN = new URL("../data/broken/", import.meta.url).pathname;

/** A verdict without the file's name: "refused: why", "ok", or the problems, one a line. */
function verdictOf(load: () => ModelCheck, name: string): string {
  let check: ModelCheck;
  try {
    check = load();
  } catch (e) {
    if (!(e instanceof OnnxError)) throw e;
    expect(e.where).toBe(name);
    return `refused: ${e.message.slice(name.length + 2)}`;
  }
  if (check.ok) return "ok";
  return check.problems.map((p) => `${formatProblem(p)} [${p.code}]`).join("\n");
}

/** The page's way: a Session whose `prepare` checks each side, as web/worker.ts's does. */
function sessionVerdict(name: string, bytes: Uint8Array): string {
  const s = new Session<ModelCheck>(undefined, (side) => checkLoaded(side.model));
  return verdictOf(() => s.load(name, bytes).view, name);
}

/** The command line's way, in this process: cli/util.ts loadModel, then check's checkLoaded. */
function cliVerdict(file: string): string {
  return verdictOf(() => checkLoaded(loadModel(file)), file);
}

/** `onnx-expand check FILE` itself, its output read back into a verdict. */
function commandVerdict(file: string): string {
  const r = runCli(["check", file]);
  const prefix = `onnx-expand: error: ${file}: `;
  if (r.code === 2) {
    expect(r.stderr.startsWith(prefix)).toBe(true);
    return `refused: ${r.stderr.trim().slice(prefix.length)}`;
  }
  if (r.code === 0) return "ok";
  expect(r.code).toBe(1);
  const lines = r.stdout.trim().split("\n");
  expect(lines.pop()).toMatch(/^\d+ problems? in /);
  return lines.map((l) => l.slice(file.length + 2)).join("\n");
}

describe("the command line and the page give one verdict", () => {
  const dir = mkdtempSync(join(tmpdir(), "onnx-expand-seam-"));

  it("on test/data/broken and the opset imports every command refuses", () => {
    const cases: [string, Uint8Array][] = readdirSync(BROKEN).map((f) => [
      f,
      readFileSync(join(BROKEN, f)),
    ]);
    for (const [label, content] of OPSET_IMPORT_CASES)
      cases.push([
        `opsets ${label}.${typeof content === "string" ? "onnxtxt" : "onnx"}`,
        typeof content === "string" ? new TextEncoder().encode(content) : content,
      ]);
    const seen = new Set<string>();
    for (const [name, bytes] of cases) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      const page = sessionVerdict(name, bytes);
      expect(cliVerdict(file), name).toBe(page);
      expect(commandVerdict(file), name).toBe(page);
      seen.add(page === "ok" ? "ok" : page.startsWith("refused") ? "refused" : "problems");
    }
    // A model importing "":18 and "ai.onnx":13 is refused by both (it loaded in the page before).
    const both = new TextEncoder().encode(OPSET_IMPORT_CASES.at(-1)![1] as string);
    expect(sessionVerdict("m.onnxtxt", both)).toMatch(
      /^refused: the model imports ai\.onnx twice \(opsets 18 and 13\)$/,
    );
    expect([...seen].sort()).toEqual(["problems", "refused"]);
  }, 300_000);

  it("on malformed nodes of every op the checker has a rule for", () => {
    const variant = malformedVariants(prng(20261206));
    let compared = 0;
    const codes = new Set<string>();
    for (const op of RULES.keys())
      for (let k = 0; k < 2; k++) {
        const bytes = encodeModel(variant(op));
        const name = `${op}-${k}.onnx`;
        const file = join(dir, name);
        writeFileSync(file, bytes);
        const page = sessionVerdict(name, bytes);
        expect(cliVerdict(file), name).toBe(page);
        for (const m of page.matchAll(/\[([a-z-]+)\]$/gm)) codes.add(m[1]!);
        compared++;
      }
    expect(compared).toBeGreaterThan(200);
    expect(codes.size).toBeGreaterThanOrEqual(10);
  }, 300_000);

  it("convert --plan refuses an invalid model for the reason convert -o gives", () => {
    for (const f of ["cycle.onnxtxt", "undefined-value.onnxtxt", "several.onnxtxt"]) {
      const file = join(BROKEN, f);
      const plan = runCli(["convert", file, "--opset", "13", "--plan"]);
      const out = runCli(["convert", file, "--opset", "13", "-o", join(dir, "never.onnx")]);
      expect(plan.code, f).toBe(2);
      expect(plan.stdout).toBe("");
      expect(plan.stderr, f).toBe(out.stderr);
      expect(out.stderr).toMatch(/^onnx-expand: error: .*\n$/);
    }
  }, 300_000);

  it("a download holds the bytes saveModel writes (binary and text, with a data file)", () => {
    const m = parseModelText(`<ir_version: 8, opset_import: ["" : 18]>
      g (float[512] x) => (float[512] y) { y = Add (x, w) }`);
    m.graph.initializers.push(Tensor.from(DataType.FLOAT, [512], new Array(512).fill(0.5), "w"));
    const from = mkdtempSync(join(tmpdir(), "onnx-expand-seam-from-"));
    saveModel(m, join(from, "m.onnx"), { externalData: { location: "m.bin" } });
    const external = loadModelFile(join(from, "m.onnx"));
    for (const [model, name] of [
      [m, "plain.onnx"],
      [m, "plain.onnxtxt"],
      [external, "ext.onnx"],
      [external, "ext.onnxtxt"],
    ] as const) {
      const path = join(dir, name);
      saveModel(model, path);
      const files = modelFiles(model, name, name.endsWith("txt") ? "text" : "binary");
      expect(files.map((f) => f.name)).toEqual(
        model === external ? [name, `${name}.data`] : [name],
      );
      for (const f of files) {
        const bytes = Buffer.concat(
          f.pieces.map((p) => (isRangePiece(p) ? p.source.read(p.offset, p.length) : p)),
        );
        expect(bytes.equals(readFileSync(join(dir, f.name))), f.name).toBe(true);
      }
    }
  });
});
