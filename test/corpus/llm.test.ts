// A decoder LLM as torch's dynamo exporter writes it, weights in an external data file: Llama's
// architecture (RMSNorm, rotary embeddings, grouped-query attention) at the "tiny" size of
// scripts/corpus/export.py (hidden 64, 2 layers, 4 heads of which 2 for keys and values, vocab
// 512), random weights, in test/data/llm (`npm run corpus:export -- --llm-size tiny --only
// llama_tiny --out test/data/llm` writes it again). Three exports: torch's default opset 20
// (attention, RMSNorm and rotary embedding in primitive ops), opset 23 (its Attention,
// RMSNormalization and RotaryEmbedding function ops), and opset 23 with past keys and values.
//
// Each loads with its weights left in the data file, runs in the interpreter with onnxruntime's
// numbers (stored by the export), converts to 17 and 13 and expands; each result, saved beside the
// model (a copy of the fixture's folder) so that it references the same data file, loads again
// and runs on onnxruntime-node and in the interpreter with the original's numbers (norm-wise).

import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  convertAndRun,
  judgeRuns,
  loadCorpusModel,
  runOnInterpreter,
  type CorpusModel,
} from "../../scripts/convert-corpus.js";
import { CORPUS_TOLERANCE, exportedDirs } from "../../scripts/corpus/judge.js";
import { expand } from "../../src/app/transform.js";
import { checkModel, formatProblem } from "../../src/check/index.js";
import { externalEntry, loadModel, saveModel } from "../../src/io/files.js";
import { walkTensors } from "../../src/ir/visit.js";
import type { Model } from "../../src/ir/types.js";

const FIXTURES = join(import.meta.dirname, "..", "data", "llm");
const dirs = exportedDirs(FIXTURES);

/**
 * torch 2.13 writes IR version 10 with opset 23, which needs 11: the one thing `check` says, as a
 * warning (ONNX's checker and onnxruntime accept it); expand writes IR 11.
 */
const IR_TOO_OLD =
  /^IR version 10 is too old for ai\.onnx opset 23, which needs IR version 11 or later/;

/**
 * Reshape-14 `allowzero = 1` with a shape computed at run time (from the mask's shape) cannot go
 * below 14: a 0 in the shape would mean "copy the input's dim" in Reshape-13. Known refusal: when
 * the converter lowers it (an If on "the shape holds a 0"), this becomes a pass.
 */
const RESHAPE_ALLOWZERO = /Reshape.*allowzero = 1 with shape '[^']+' computed at run time/;

const externals = (m: Model) => walkTensors(m).filter((t) => t.data.kind === "external");

describe.skipIf(dirs.length === 0)("a Llama-style decoder exported with external data", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "onnx-expand-llm-"));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("has the three exports", () => {
    expect(dirs.map((d) => basename(d))).toEqual([
      "llama_tiny_dynamo",
      "llama_tiny_dynamo_op23",
      "llama_tiny_kv_dynamo_op23",
    ]);
  });

  for (const fixture of dirs) {
    const name = basename(fixture);
    const op23 = name.endsWith("_op23");
    /** The model of a copy of the fixture's folder (each test its own: running reads the data in). */
    const load = (): CorpusModel => {
      const dir = join(scratch, name);
      if (!statSync(dir, { throwIfNoEntry: false })) cpSync(fixture, dir, { recursive: true });
      return loadCorpusModel(dir)!;
    };

    describe(name, () => {
      it("loads with its weights left in model.onnx.data, each tensor its own non-zero bytes", () => {
        const m = load();
        const ext = externals(m.model);
        expect(ext.length).toBe(16);
        const data = readFileSync(join(m.dir, "model.onnx.data"));
        const heads = new Set<string>();
        for (const t of ext) {
          expect(externalEntry(t, "location")).toBe("model.onnx.data");
          const offset = Number(externalEntry(t, "offset"));
          const bytes = data.subarray(offset, offset + Number(externalEntry(t, "length")));
          const floats = new Float32Array(
            bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length),
          );
          expect(floats.every((x) => x !== 0 && Number.isFinite(x))).toBe(true);
          heads.add(bytes.subarray(0, 64).toString("hex"));
        }
        expect(heads.size).toBe(ext.length);
      });

      it(`check finds ${op23 ? "only torch's IR version, as a warning" : "nothing"}`, () => {
        const r = checkModel(load().model);
        expect(r.problems.map(formatProblem)).toEqual([]);
        const warnings = r.warnings.map((w) => w.message);
        if (op23) {
          expect(warnings).toHaveLength(1);
          expect(warnings[0]).toMatch(IR_TOO_OLD);
        } else expect(warnings).toEqual([]);
      });

      it("runs in the interpreter with onnxruntime's numbers", () => {
        const m = load();
        const r = runOnInterpreter(m.model, m.sets, CORPUS_TOLERANCE);
        expect(r).toMatchObject({ ok: true });
        expect(r.ok && r.worstNorm).toBeLessThan(1e-6);
      });

      /** Saves a result beside the model, loads it back and judges it on both runtimes. */
      const judgeSaved = async (m: CorpusModel, result: Model, file: string) => {
        const path = join(m.dir, file);
        saveModel(result, path);
        // The weights stay in the data file: the model file holds the graph only.
        expect(statSync(path).size).toBeLessThan(statSync(join(m.dir, "model.onnx.data")).size);
        const back = loadModel(path);
        expect(externals(back).length).toBe(16);
        return judgeRuns(back, m, true, CORPUS_TOLERANCE);
      };

      for (const target of [17, 13])
        it(`converts to ${target}${target === 13 ? " (or names what blocks)" : ""}`, async () => {
          const m = load();
          const o = await convertAndRun(m, target, false, { keep: true, lower: true });
          if (target === 13) {
            // Every export holds Reshape-14 allowzero = 1 on shapes computed at run time.
            expect(o.outcome).toBe("refused");
            expect(o.reason).toMatch(RESHAPE_ALLOWZERO);
            return;
          }
          expect({ outcome: o.outcome, reason: o.reason }).toEqual({
            outcome: "pass",
            reason: undefined,
          });
          expect(o.checkProblems).toEqual([]);
          const saved = await judgeSaved(m, o.model!, `model${target}.onnx`);
          expect({ outcome: saved.outcome, reason: saved.reason }).toEqual({
            outcome: "pass",
            reason: undefined,
          });
        });

      it("expands, and runs as the original does", async () => {
        const m = load();
        const r = expand(m.model);
        if (!r.ok) throw new Error(`expand refused: ${r.notes.map((n) => n.message).join("; ")}`);
        const checked = checkModel(r.model);
        expect(checked.problems.map(formatProblem)).toEqual([]);
        expect(checked.warnings.map((w) => w.message)).toEqual([]);
        if (op23) expect(r.model.irVersion).toBeGreaterThanOrEqual(11);
        const ops = new Set(r.model.graph.nodes.map((n) => n.opType));
        for (const op of ["Attention", "RMSNormalization", "RotaryEmbedding", "Softmax", "Range"])
          expect(ops.has(op), op).toBe(false);
        const o = await judgeSaved(m, r.model, "expanded.onnx");
        expect({ outcome: o.outcome, reason: o.reason }).toEqual({
          outcome: "pass",
          reason: undefined,
        });
      });
    });
  }
});
