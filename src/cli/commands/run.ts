// run, test: executing models in the interpreter.

import { Presets, SingleBar } from "cli-progress";
import type { Command } from "commander";
import { existsSync, mkdirSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { checkModel, formatProblem, type ProblemCode } from "../../check/index.js";
import { OnnxError } from "../../errors.js";
import { readInputFile, writeFilesAtomic } from "../../io/files.js";
import { dtypeName } from "../../ir/dtype.js";
import type { Model, ValueInfo } from "../../ir/types.js";
import { DataType } from "../../ir/types.js";
import {
  DEFAULT_TOLERANCE,
  findBackendTestDirs,
  runBackendTest,
} from "../../interp/backend-test.js";
import { parseJsonTensor } from "../../interp/json-tensor.js";
import { decodeNpy } from "../../interp/npy.js";
import { decodeValueProto, encodeTensorProto } from "../../interp/value-proto.js";
import { DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_ITERATIONS, runValues } from "../../interp/executor.js";
import type { RTensor, RValue } from "../../interp/types.js";
import { summarizeTensor } from "../format.js";
import {
  EXIT_FAILED,
  EXIT_OK,
  action,
  defaultMaxMemory,
  errorLine,
  loadModel,
  oneLine,
  parseByteSize,
} from "../util.js";

const MAX_MEMORY_HELP =
  "most bytes a run may hold at once (e.g. 512M, 4G; default: half of the physical memory)";

function parsePositiveInt(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new OnnxError("E_USAGE", `${what} must be a positive integer, got '${text}'`);
  return n;
}

function parseNonNegative(text: string, what: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0)
    throw new OnnxError("E_USAGE", `${what} must be a non-negative number, got '${text}'`);
  return n;
}

/**
 * A value from a file: .npy by extension (or signature), else a TensorProto, or a
 * SequenceProto/OptionalProto for inputs declared as sequences/optionals.
 */
function readTensorFile(path: string, vi: ValueInfo): RValue {
  const bytes = readInputFile(path, "tensor file", true);
  if (path.endsWith(".npy") || (bytes[0] === 0x93 && bytes[1] === 0x4e))
    return decodeNpy(bytes, path);
  return decodeValueProto(bytes, vi.type, path, dirname(resolve(path))).value;
}

function declaredDtype(vi: ValueInfo): number {
  const t = vi.type;
  return t && t.kind === "tensor" && t.elemType ? t.elemType : DataType.FLOAT;
}

/**
 * Binds command-line input arguments to graph inputs: `name=FILE`, `name=json:[...]`, or a bare
 * FILE taken in graph-input order (inputs with an initializer default are skipped).
 */
export function bindInputs(model: Model, args: string[]): Record<string, RValue> {
  const g = model.graph;
  const byName = new Map(g.inputs.map((v) => [v.name, v]));
  const defaults = new Set(g.initializers.map((t) => t.name));
  const positional = g.inputs.filter((v) => !defaults.has(v.name));
  const out: Record<string, RValue> = {};
  let next = 0;
  for (const arg of args) {
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : undefined;
    if (name !== undefined && (byName.has(name) || !existsSync(arg))) {
      const vi = byName.get(name);
      if (!vi)
        throw new OnnxError(
          "E_USAGE",
          `the model has no input named '${name}' (inputs: ${g.inputs.map((v) => v.name).join(", ") || "none"})`,
        );
      const spec = arg.slice(eq + 1);
      if (name in out) throw new OnnxError("E_USAGE", `input '${name}' is given twice`);
      out[name] = spec.startsWith("json:")
        ? parseJsonTensor(spec.slice(5), declaredDtype(vi), `input '${name}'`)
        : readTensorFile(spec, vi);
      continue;
    }
    while (next < positional.length && positional[next]!.name in out) next++;
    const vi = positional[next++];
    if (!vi)
      throw new OnnxError(
        "E_USAGE",
        `too many inputs: the model takes ${positional.length} (${positional.map((v) => v.name).join(", ")})`,
        arg,
      );
    out[vi.name] = readTensorFile(arg, vi);
  }
  return out;
}

/**
 * Checker findings that make a model unrunnable as written: the interpreter's kernels follow the
 * latest op version and read attributes by name, so without this an op missing from the imported
 * opset, or an attribute of the wrong type, would run anyway (silently using a default).
 */
const RUN_BLOCKERS = new Set<ProblemCode>([
  "opset-import",
  "domain-not-imported",
  "unknown-op",
  "op-not-in-opset",
  "attribute-type",
  "duplicate-attribute",
  "duplicate-value",
  "input-count",
  "output-count",
  "ref-attribute",
  "function-cycle",
]);

export function assertRunnable(model: Model, file: string): void {
  const blockers = checkModel(model).problems.filter((p) => RUN_BLOCKERS.has(p.code));
  if (blockers.length === 0) return;
  const more =
    blockers.length > 1 ? ` (and ${blockers.length - 1} more; 'onnx-expand check' lists them)` : "";
  throw new OnnxError("E_MODEL", `${formatProblem(blockers[0]!)}${more}`, file);
}

/**
 * Creates a folder and its missing parents one by one (mkdirSync's recursive mode spins forever
 * under /proc), saying which path is in the way when one is a file.
 */
function makeOutputDir(dir: string): void {
  const missing: string[] = [];
  let p = resolve(dir);
  while (!existsSync(p)) {
    missing.unshift(p);
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  if (existsSync(p) && !statSync(p).isDirectory())
    throw new OnnxError("E_IO", `'${p}' is a file, not a folder`, `--output-dir ${dir}`);
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (e) {
      throw new OnnxError(
        "E_IO",
        `cannot create folder '${m}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        `--output-dir ${dir}`,
      );
    }
  }
}

/** Whether two paths name one existing file. */
function sameFile(a: string, b: string): boolean {
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.isFile() && sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

/** A sequence or optional output: its kind and, for sequences, each item's summary. */
function describeValue(name: string, v: RValue, shown: number): string {
  if ("dtype" in v) return summarizeTensor(name, v, shown);
  if (v.kind === "optional-none") return `${name}: optional (no value)`;
  const lines = v.items.map((t, i) => "  " + summarizeTensor(`[${i}]`, t, shown));
  return [
    `${name}: sequence of ${v.items.length} ${dtypeName(v.elemDtype)} tensors`,
    ...lines,
  ].join("\n");
}

export function registerRunCommands(program: Command): void {
  program
    .command("run")
    .description("run a model in the reference interpreter")
    .argument("<model>", "model file (.onnx or .onnxtxt)")
    .argument(
      "[inputs...]",
      "input tensors: FILE (.pb TensorProto or .npy, in graph-input order), name=FILE, or name=json:[...]",
    )
    .option(
      "--output-dir <dir>",
      "write each output as output_<i>.pb (TensorProto) into this folder",
    )
    .option(
      "--max-elements <n>",
      "largest element count a tensor may have",
      String(DEFAULT_MAX_ELEMENTS),
    )
    .option(
      "--max-iterations <n>",
      "most iterations a Loop may run",
      String(DEFAULT_MAX_ITERATIONS),
    )
    .option("--max-memory <bytes>", MAX_MEMORY_HELP)
    .option("--values <n>", "how many leading values to print per output", "8")
    .action(
      action(
        (
          file: string,
          inputArgs: string[],
          opts: {
            outputDir?: string;
            maxElements: string;
            maxIterations: string;
            maxMemory?: string;
            values: string;
          },
        ) => {
          const maxElements = parsePositiveInt(opts.maxElements, "--max-elements");
          const maxMemory =
            opts.maxMemory === undefined
              ? defaultMaxMemory()
              : parseByteSize(opts.maxMemory, "--max-memory");
          const maxIterations = parsePositiveInt(opts.maxIterations, "--max-iterations");
          const shown = parsePositiveInt(opts.values, "--values");
          const model = loadModel(file);
          assertRunnable(model, file);
          const inputs = bindInputs(model, inputArgs);
          const outputs = runValues(model, inputs, { maxElements, maxIterations, maxMemory });
          if (opts.outputDir) {
            for (const o of model.graph.outputs)
              if (!("dtype" in outputs[o.name]!))
                throw new OnnxError(
                  "E_UNSUPPORTED",
                  `output '${o.name}' is not a tensor and cannot be written as a TensorProto file`,
                );
            makeOutputDir(opts.outputDir);
            const given = [file, ...inputArgs.flatMap((a) => [a, a.slice(a.indexOf("=") + 1)])];
            model.graph.outputs.forEach((_, i) => {
              const out = join(opts.outputDir!, `output_${i}.pb`);
              const clash = given.find((g) => sameFile(g, out));
              if (clash)
                throw new OnnxError(
                  "E_USAGE",
                  `output_${i}.pb would overwrite the input file '${clash}'`,
                  `--output-dir ${opts.outputDir}`,
                );
            });
          }
          if (opts.outputDir) {
            // All outputs or none: a failure on one leaves every earlier output file as it was.
            const dir = opts.outputDir;
            writeFilesAtomic(
              model.graph.outputs.map((o, i) => ({
                path: join(dir, `output_${i}.pb`),
                write: (fd: number) => {
                  const bytes = encodeTensorProto(outputs[o.name] as RTensor, o.name);
                  let off = 0;
                  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
                },
              })),
            );
          }
          model.graph.outputs.forEach((o) => {
            const v = outputs[o.name]!;
            process.stdout.write(
              ("dtype" in v
                ? summarizeTensor(oneLine(o.name), v, shown)
                : describeValue(oneLine(o.name), v, shown)) + "\n",
            );
          });
          return EXIT_OK;
        },
      ),
    );

  program
    .command("test")
    .description(
      "run ONNX backend-test folders (model.onnx, test_data_set_*/input_*.pb, output_*.pb) and compare outputs",
    )
    .argument("<dirs...>", "test folders, or folders that contain test folders")
    .option("--rtol <x>", "relative tolerance", String(DEFAULT_TOLERANCE.rtol))
    .option("--atol <x>", "absolute tolerance", String(DEFAULT_TOLERANCE.atol))
    .option(
      "--max-elements <n>",
      "largest element count a tensor may have",
      String(DEFAULT_MAX_ELEMENTS),
    )
    .option("--max-memory <bytes>", MAX_MEMORY_HELP)
    .action(
      action(
        (
          dirs: string[],
          opts: { rtol: string; atol: string; maxElements: string; maxMemory?: string },
        ) => {
          const tolerance = {
            rtol: parseNonNegative(opts.rtol, "--rtol"),
            atol: parseNonNegative(opts.atol, "--atol"),
          };
          const maxElements = parsePositiveInt(opts.maxElements, "--max-elements");
          const maxMemory =
            opts.maxMemory === undefined
              ? defaultMaxMemory()
              : parseByteSize(opts.maxMemory, "--max-memory");
          const tests = findBackendTestDirs(dirs);
          let passed = 0;
          let failed = 0;
          // With results going to a file or pipe, a progress bar on the terminal shows how far along we are.
          const bar =
            process.stderr.isTTY && !process.stdout.isTTY && tests.length > 1
              ? new SingleBar(
                  {
                    stream: process.stderr,
                    format: "{bar} {value}/{total} {dir}",
                    clearOnComplete: true,
                  },
                  Presets.shades_classic,
                )
              : undefined;
          bar?.start(tests.length, 0, { dir: "" });
          for (const dir of tests) {
            bar?.increment(1, { dir: basename(dir) });
            const r = runBackendTest(dir, { tolerance, maxElements, maxMemory });
            const shownDir = relative(process.cwd(), dir) || dir;
            if (r.ok) {
              passed++;
              process.stdout.write(`PASS ${shownDir}\n`);
            } else {
              failed++;
              process.stdout.write(`FAIL ${errorLine(`${shownDir}: ${r.reason}`)}\n`);
            }
          }
          bar?.stop();
          process.stdout.write(`${passed} passed, ${failed} failed\n`);
          return failed ? EXIT_FAILED : EXIT_OK;
        },
      ),
    );
}
