// run, test: executing models in the interpreter.

import { Presets, SingleBar } from "cli-progress";
import type { Command } from "commander";
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync, writeSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import {
  bindInputs,
  formatTaken,
  parseDims,
  randomInputs,
  runModels,
  withTakenDims,
  type InputArg,
  type InputFile,
  type TakenDim,
} from "../../app/index.js";
import { OnnxError } from "../../errors.js";
import { readInputFile, writeFilesAtomic } from "../../io/files.js";
import { dtypeName } from "../../ir/dtype.js";
import type { Model } from "../../ir/types.js";
import {
  DEFAULT_TOLERANCE,
  findBackendTestDirs,
  formatFloatErrors,
  runBackendTest,
  type BackendTestResult,
} from "../../interp/backend-test.js";
import { TENSOR_FILE_HEAD, encodeTensorFiles, tensorFileBuffer } from "../../interp/value-proto.js";
import { formatProfile, type RunProfile } from "../../interp/profile.js";
import { chargeBytes } from "../../interp/budget.js";
import { DEFAULT_MAX_RUN_NODES } from "../../interp/call-count.js";
import { DEFAULT_MAX_ELEMENTS, DEFAULT_MAX_ITERATIONS } from "../../interp/executor.js";
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
 * Command-line input arguments as the app layer binds them: `name=FILE`, `name=json:[...]`, or a
 * bare FILE taken in graph-input order. `name=...` names an input when the model has that input or
 * no file of the whole name exists.
 */
export function inputArgs(model: Model, args: string[]): InputArg[] {
  const names = new Set(model.graph.inputs.map((v) => v.name));
  return args.map((arg) => {
    const eq = arg.indexOf("=");
    const name = eq > 0 ? arg.slice(0, eq) : undefined;
    if (name === undefined || !(names.has(name) || !existsSync(arg))) return { file: arg };
    const spec = arg.slice(eq + 1);
    return spec.startsWith("json:") ? { name, json: spec.slice(5) } : { name, file: spec };
  });
}

/** Regular files at least this large are read into a buffer laid out for the kernels. */
const LARGE_TENSOR_FILE = 1 << 22;

/**
 * A large regular file read straight into the buffer tensorFileBuffer lays out from its first
 * bytes (a big float32 TensorProto lands where the kernels read it: no copy after the read).
 * Undefined for anything else, which readInputFile reads as it reads every file.
 */
function readLargeTensorFile(path: string): Uint8Array | undefined {
  let fd: number | undefined;
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size < LARGE_TENSOR_FILE) return undefined;
    fd = openSync(path, "r");
    const head = new Uint8Array(TENSOR_FILE_HEAD);
    const got = readSync(fd, head, 0, head.length, 0);
    const buf = tensorFileBuffer(st.size, head.subarray(0, got));
    buf.set(head.subarray(0, Math.min(got, st.size)));
    let off = got;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) return undefined; // shorter than its size said: let readInputFile read it
      off += n;
    }
    return buf;
  } catch {
    return undefined; // readInputFile reads it again and names the error as for any file
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A tensor file's bytes, and its folder for a TensorProto's external data. */
export function readTensorFile(path: string): InputFile {
  // Its bytes count against the run's memory budget (inputs are bound under it), before reading.
  let size = 0;
  try {
    const st = statSync(path);
    if (st.isFile()) size = st.size;
  } catch {
    // readInputFile names what is wrong with it
  }
  try {
    chargeBytes(size, false, `the input file`);
  } catch (e) {
    if (e instanceof OnnxError) throw new OnnxError(e.code, e.message, path);
    throw e;
  }
  const bytes = readLargeTensorFile(path) ?? readInputFile(path, "tensor file", true);
  return { bytes, baseDir: dirname(resolve(path)) };
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
    .option(
      "--max-nodes <n>",
      "most nodes the run may execute, calls of local functions counted out before it starts",
      String(DEFAULT_MAX_RUN_NODES),
    )
    .option("--max-memory <bytes>", MAX_MEMORY_HELP)
    .option("--values <n>", "how many leading values to print per output", "8")
    .option("--profile", "print time, share and output bytes per op type and the slowest nodes")
    .option(
      "--random",
      "seeded random values for every input not given (ids within the table they index, compared constants where the model compares)",
    )
    .option("--seed <n>", "seed of --random", "0")
    .option(
      "--dim <name=v,...>",
      "with --random: values of symbolic input dims (others are 1); repeatable",
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .action(
      action(
        (
          file: string,
          given: string[],
          opts: {
            outputDir?: string;
            maxElements: string;
            maxIterations: string;
            maxNodes: string;
            maxMemory?: string;
            values: string;
            profile?: boolean;
            random?: boolean;
            seed: string;
            dim: string[];
          },
        ) => {
          const maxElements = parsePositiveInt(opts.maxElements, "--max-elements");
          const maxMemory =
            opts.maxMemory === undefined
              ? defaultMaxMemory()
              : parseByteSize(opts.maxMemory, "--max-memory");
          const maxIterations = parsePositiveInt(opts.maxIterations, "--max-iterations");
          const maxNodes = parsePositiveInt(opts.maxNodes, "--max-nodes");
          const shown = parsePositiveInt(opts.values, "--values");
          const model = loadModel(file);
          const profile: RunProfile | undefined = opts.profile ? {} : undefined;
          if (!opts.random && opts.dim.length)
            throw new OnnxError(
              "E_USAGE",
              "--dim sets the shapes of --random inputs: add --random",
            );
          const seed = Number(opts.seed);
          if (!Number.isSafeInteger(seed))
            throw new OnnxError("E_USAGE", `--seed must be an integer, not '${opts.seed}'`);
          const dims = parseDims(...opts.dim);
          const taken: TakenDim[] = [];
          const bind = () => {
            const bound = bindInputs(model, inputArgs(model, given), readTensorFile);
            if (!opts.random) return bound;
            return { ...randomInputs(model, seed, dims, Object.keys(bound), taken), ...bound };
          };
          let run: ReturnType<typeof runModels>;
          try {
            run = runModels([{ name: file, model }], bind, {
              maxElements,
              maxIterations,
              maxNodes,
              maxMemory,
              profile,
            });
          } catch (e) {
            throw withTakenDims(e, taken, "--dim name=value");
          }
          // The dims left symbolic are said with the size the random inputs took.
          if (taken.length)
            process.stderr.write(
              oneLine(`onnx-expand: input dims not given, taken as ${formatTaken(taken)}`) + "\n",
            );
          const outputs = run.outputs[0]!;
          if (opts.outputDir) {
            for (const o of model.graph.outputs)
              if (!("dtype" in outputs[o.name]!))
                throw new OnnxError(
                  "E_UNSUPPORTED",
                  `output '${o.name}' is not a tensor and cannot be written as a TensorProto file`,
                );
            makeOutputDir(opts.outputDir);
            const paths = [file, ...given.flatMap((a) => [a, a.slice(a.indexOf("=") + 1)])];
            model.graph.outputs.forEach((_, i) => {
              const out = join(opts.outputDir!, `output_${i}.pb`);
              const clash = paths.find((g) => sameFile(g, out));
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
            // A tensor past protobuf's 2 GiB goes to output_<i>.pb.data beside its message.
            const dir = opts.outputDir;
            const writeAll = (fd: number, parts: Uint8Array[]) => {
              for (const bytes of parts) {
                let off = 0;
                while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
              }
            };
            writeFilesAtomic(
              model.graph.outputs.flatMap((o, i) => {
                const name = `output_${i}.pb`;
                const files = encodeTensorFiles(outputs[o.name] as RTensor, o.name, `${name}.data`);
                const data = files.data;
                return [
                  { path: join(dir, name), write: (fd: number) => writeAll(fd, files.message) },
                  ...(data
                    ? [
                        {
                          path: join(dir, `${name}.data`),
                          write: (fd: number) => writeAll(fd, [data]),
                        },
                      ]
                    : []),
                ];
              }),
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
          if (profile) process.stdout.write(formatProfile(profile) + "\n");
          return EXIT_OK;
        },
      ),
    );

  /** One line per float output compared: how far it is from the expected one, and where. */
  const writeErrors = (r: BackendTestResult) => {
    for (const e of r.errors ?? [])
      process.stdout.write(`  ${e.set} '${oneLine(e.output)}': ${formatFloatErrors(e.errors)}\n`);
  };

  program
    .command("test")
    .description(
      "run ONNX backend-test folders (model.onnx, test_data_set_*/input_*.pb, output_*.pb) and compare outputs",
    )
    .argument("<dirs...>", "test folders, or folders that contain test folders")
    .option("--rtol <x>", "relative tolerance", String(DEFAULT_TOLERANCE.rtol))
    .option("--atol <x>", "absolute tolerance", String(DEFAULT_TOLERANCE.atol))
    .option(
      "--norm-rtol <x>",
      "judge float outputs by their norm-wise error ‖a−b‖/‖b‖ instead of element by element (for real models; see README)",
    )
    .option(
      "--errors",
      "print each float output's largest absolute and relative error (and where) and norm-wise error, also when it passes",
    )
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
          opts: {
            rtol: string;
            atol: string;
            normRtol?: string;
            errors?: boolean;
            maxElements: string;
            maxMemory?: string;
          },
        ) => {
          const tolerance = {
            rtol: parseNonNegative(opts.rtol, "--rtol"),
            atol: parseNonNegative(opts.atol, "--atol"),
            ...(opts.normRtol !== undefined
              ? { normRtol: parseNonNegative(opts.normRtol, "--norm-rtol") }
              : {}),
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
              if (opts.errors) writeErrors(r);
            } else {
              failed++;
              process.stdout.write(`FAIL ${errorLine(`${shownDir}: ${r.reason}`)}\n`);
              writeErrors(r);
            }
          }
          bar?.stop();
          process.stdout.write(`${passed} passed, ${failed} failed\n`);
          return failed ? EXIT_FAILED : EXIT_OK;
        },
      ),
    );
}
