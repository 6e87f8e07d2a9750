// precision: a float32 model's computation made float16 or bfloat16, verified in the interpreter
// (the to-half pass, docs/semantics.md "Precision lowering"); its options are also `lower`'s
// (`lower --target X --precision float16`).

import type { Command } from "commander";
import { parseDims } from "../../app/dims.js";
import { bindInputs } from "../../app/inputs.js";
import { precision, type PrecisionRequest } from "../../app/precision.js";
import { OnnxError } from "../../errors.js";
import { saveModel } from "../../io/files.js";
import type { Model } from "../../ir/types.js";
import { EXIT_OK, action, inFile, loadModel, oneLine, writeListed } from "../util.js";
import { writtenLines } from "../report.js";
import { dataOptions, withDataOptions, type DataFlags } from "../data-options.js";
import { inputArgs, readTensorFile } from "./run.js";

/** The precision options `precision` and `lower` share. */
export interface PrecisionFlags {
  /** commander: true (--keep-io-types), a list, or false (--no-keep-io-types). */
  keepIoTypes?: boolean | string;
  keepOps?: string;
  keepNodes?: string;
  maxError?: string;
  clamp?: boolean;
  /** commander's negation: --no-verify. */
  verify?: boolean;
  seed?: string;
}

export function withPrecisionOptions(cmd: Command): Command {
  return cmd
    .option(
      "--keep-io-types [names]",
      "graph inputs and outputs that stay float32, cast at the boundary (default: all; a comma-separated list: those)",
    )
    .option("--no-keep-io-types", "graph inputs and outputs made half too")
    .option("--keep-ops <ops>", "op types that stay float32 (comma-separated Op or domain:Op)")
    .option("--keep-nodes <names>", "nodes that stay float32 (comma-separated names)")
    .option(
      "--max-error <x>",
      "largest norm-wise error of any output against the float32 model, verified in the interpreter",
      "1e-2",
    )
    .option(
      "--clamp",
      "clamp stored values beyond the half type's range (else their readers stay float32)",
    )
    .option("--no-verify", "do not run the models: no value range or error check")
    .option("--seed <n>", "seed of the random inputs the verification runs on", "0");
}

const list = (s: string | undefined) =>
  s === undefined
    ? undefined
    : s
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x);

/** The request the flags make (the precision itself and the inputs are the command's). */
export function precisionRequest(to: string, opts: PrecisionFlags): PrecisionRequest {
  if (to !== "float16" && to !== "bfloat16")
    throw new OnnxError("E_USAGE", `the precision must be float16 or bfloat16, not '${to}'`);
  const maxError = Number(opts.maxError ?? "1e-2");
  if (!Number.isFinite(maxError) || maxError < 0)
    throw new OnnxError(
      "E_USAGE",
      `--max-error must be a non-negative number, got '${opts.maxError}'`,
    );
  const seed = Number(opts.seed ?? "0");
  if (!Number.isSafeInteger(seed))
    throw new OnnxError("E_USAGE", `--seed must be an integer, not '${opts.seed}'`);
  const k = opts.keepIoTypes;
  return {
    to,
    ...(k === undefined ? {} : { keepIo: typeof k === "string" ? list(k)! : k }),
    ...(opts.keepOps !== undefined ? { keepOps: list(opts.keepOps)! } : {}),
    ...(opts.keepNodes !== undefined ? { keepNodes: list(opts.keepNodes)! } : {}),
    ...(opts.clamp ? { clamp: true } : {}),
    verify: opts.verify !== false,
    maxError,
    seed,
  };
}

type Flags = PrecisionFlags &
  DataFlags & { to: string; output: string; force?: boolean; dim: string[]; json?: boolean };

export function registerPrecisionCommands(program: Command): void {
  withDataOptions(
    withPrecisionOptions(
      program
        .command("precision")
        .description(
          "make a float32 model compute in float16 or bfloat16, verified node by node in the interpreter",
        )
        .argument("<model>", "model file (.onnx or .onnxtxt)")
        .argument(
          "[inputs...]",
          "inputs the verification runs on: FILE (.pb or .npy, in graph-input order), name=FILE or name=json:[...]; the others seeded random",
        )
        .requiredOption("--to <type>", "float16 or bfloat16")
        .requiredOption("-o, --output <file>", "output model (.onnx, or .onnxtxt for text)")
        .option("--force", "allow the output to replace the input")
        .option(
          "--dim <name=v,...>",
          "values of symbolic input dims for the random inputs (others are 1); repeatable",
          (v: string, prev: string[]) => [...prev, v],
          [] as string[],
        )
        .option("--json", "the report as JSON on stdout"),
    ),
  ).action(
    action((file: string, given: string[], opts: Flags) => {
      const req = precisionRequest(opts.to, opts);
      const model: Model = loadModel(file);
      if (given.length) req.inputs = bindInputs(model, inputArgs(model, given), readTensorFile);
      if (opts.dim.length) req.dims = parseDims(...opts.dim);
      const r = inFile(file, () => precision(model, req));
      if (!r.ok) {
        const first = r.notes.find((n) => n.level === "error");
        throw new OnnxError("E_USAGE", first?.message ?? "precision failed", file);
      }
      writeListed(
        r.notes
          .filter((n) => n.level === "warning")
          .map((n) => `onnx-expand: warning: ${oneLine(n.message)}`),
        (more) => `onnx-expand: … and ${more} more warnings`,
      );
      saveModel(r.model, opts.output, { inputPath: file, force: opts.force, ...dataOptions(opts) });
      if (opts.json) process.stdout.write(JSON.stringify(r.report, null, 2) + "\n");
      else {
        const lines = writtenLines(opts.output, model, r.model, `made ${opts.to}`);
        process.stdout.write(lines.join("\n") + "\n");
        for (const n of r.notes)
          if (n.level === "info") process.stdout.write(`  ${oneLine(n.message)}\n`);
      }
      return EXIT_OK;
    }),
  );
}
