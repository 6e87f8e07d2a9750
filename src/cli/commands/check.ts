// check: the checker from the command line. Every problem on its own line, then a count.

import type { Command } from "commander";
import { checkLoaded } from "../../app/check.js";
import { formatProblem, memoryWarnings, withInferredValueInfo } from "../../check/index.js";
import { formatBytes } from "../../interp/budget.js";
import {
  classifyModel,
  formatTargetReport,
  fullySupported,
  targetSummary,
} from "../../targets/classify.js";
import { listProfiles, loadProfile } from "../../targets/load.js";
import { saveModel } from "../../io/files.js";
import { EXIT_FAILED, EXIT_OK, action, errorLine, loadModel, parseByteSize } from "../util.js";
import { writtenLines } from "../report.js";
import { dataOptions, withDataOptions, type DataFlags } from "../data-options.js";

interface CheckCliOptions extends DataFlags {
  json?: boolean;
  target?: string;
  writeValueInfo?: string;
  /** false with --no-fresh-dims. */
  freshDims: boolean;
  force?: boolean;
  maxMemory?: string;
}

export function registerCheckCommands(program: Command): void {
  withDataOptions(
    program
      .command("check")
      .description(
        "check a model: IR and opset versions, operators, attributes, arity, types and shapes, graph structure, functions",
      )
      .argument("<model>", "model file (.onnx or .onnxtxt)")
      .option("--json", "machine-readable output")
      .option(
        "--target <name>",
        "also classify every node for a backend: a profile name (onnx-expand targets), name@version, ai.onnx-<N>, or a profile file; exit 1 when anything is not supported",
      )
      .option(
        "--write-value-info <file>",
        "if the model checks clean, write a copy whose value_info holds the inferred types",
      )
      .option(
        "--no-fresh-dims",
        "with --write-value-info: leave a dimension inference cannot name unknown (default: a fresh symbol unk__N, as ONNX's inference writes)",
      )
      .option("--force", "allow --write-value-info to replace the input")
      .option(
        "--max-memory <bytes>",
        "also warn where a value whose size is known statically is larger than this (e.g. 4G)",
      ),
  ).action(
    action((file: string, opts: CheckCliOptions) => {
      const maxMemory =
        opts.maxMemory === undefined ? undefined : parseByteSize(opts.maxMemory, "--max-memory");
      const profile = opts.target === undefined ? undefined : loadProfile(opts.target);
      const model = loadModel(file);
      const report = checkLoaded(model);
      const target = profile ? classifyModel(model, profile) : undefined;
      const ok = report.ok && (!target || fullySupported(target));
      const warnings = maxMemory === undefined ? [] : memoryWarnings(model, maxMemory);
      let written: string | undefined;
      let wroteLines: string[] = [];
      if (opts.writeValueInfo && report.ok) {
        const typed = withInferredValueInfo(model, { freshDims: opts.freshDims });
        saveModel(typed, opts.writeValueInfo, {
          inputPath: file,
          force: opts.force,
          ...dataOptions(opts),
        });
        written = opts.writeValueInfo;
        wroteLines = writtenLines(written, model, typed, "typed");
      }
      const n = report.problems.length;
      // One closing line that agrees with the exit code: the checker's verdict, then the target's.
      const summary = !report.ok
        ? `${n} problem${n === 1 ? "" : "s"} in ${file}` +
          (target ? `; ${targetSummary(target)}` : "")
        : target && !fullySupported(target)
          ? `not supported: ${file}: ${targetSummary(target)}`
          : `ok: ${file}` + (target ? ` (${targetSummary(target)})` : "");
      if (opts.json) {
        const out = {
          file,
          /** The checker's verdict (the target's is in `target`; both in `summary`). */
          ok: report.ok,
          summary,
          exitCode: ok ? EXIT_OK : EXIT_FAILED,
          problems: report.problems,
          ...(report.warnings.length ? { modelWarnings: report.warnings } : {}),
          ...(maxMemory === undefined ? {} : { warnings }),
          ...(written ? { written } : {}),
          ...(target ? { target } : {}),
        };
        process.stdout.write(JSON.stringify(out, null, 2) + "\n");
        return ok ? EXIT_OK : EXIT_FAILED;
      }
      for (const w of report.warnings)
        process.stdout.write(`${file}: warning: ${errorLine(`${w.where}: ${w.message}`)}\n`);
      for (const w of warnings)
        process.stdout.write(
          `${file}: warning: ${errorLine(`${w.where}: output '${w.value}'`)} is ${w.type}, ${formatBytes(w.bytes)}, over --max-memory ${formatBytes(maxMemory!)}\n`,
        );
      if (target)
        process.stdout.write(
          formatTargetReport(target)
            .map((l) => `${file}: ${l}\n`)
            .join(""),
        );
      const lines = report.problems.map(
        (p) => `${file}: ${errorLine(formatProblem(p))} [${p.code}]\n`,
      );
      // The value_info inferred changes no node: the success line, as every command writes it.
      for (const l of wroteLines) lines.push(`${l}\n`);
      if (opts.writeValueInfo && !report.ok) lines.push(`not written: ${opts.writeValueInfo}\n`);
      lines.push(`${summary}\n`);
      process.stdout.write(lines.join(""));
      return ok ? EXIT_OK : EXIT_FAILED;
    }),
  );

  program
    .command("targets")
    .description("list the backend profiles check --target knows, with their sources")
    .option("--json", "machine-readable output")
    .action(
      action((opts: { json?: boolean }) => {
        const rows = listProfiles().map((p) => ({
          target: `${p.name}@${p.version}`,
          backend: `${p.backend} ${p.backendVersion}`,
          opset: `${p.opset.min}-${p.opset.max}`,
          ops: Object.keys(p.ops).length,
          source: p.source.url,
          date: p.source.date,
        }));
        if (opts.json) process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
        else {
          for (const r of rows)
            process.stdout.write(
              `${r.target}: ${r.backend}, ai.onnx ${r.opset}, ${r.ops} ops (${r.source}, read ${r.date})\n`,
            );
          process.stdout.write(
            "ai.onnx-<N>: plain ONNX opset N without function ops (from the schemas)\n",
          );
        }
        return EXIT_OK;
      }),
    );
}
