// check: the checker from the command line. Every problem on its own line, then a count.

import type { Command } from "commander";
import { checkModel, formatProblem } from "../../check/index.js";
import { loadModel } from "../../io/files.js";
import { EXIT_FAILED, EXIT_OK, action } from "../util.js";

export function registerCheckCommands(program: Command): void {
  program
    .command("check")
    .description(
      "check a model: IR and opset versions, operators, attributes, arity, types and shapes, graph structure, functions",
    )
    .argument("<model>", "model file (.onnx or .onnxtxt)")
    .option("--json", "machine-readable output")
    .action(
      action((file: string, opts: { json?: boolean }) => {
        const model = loadModel(file);
        const report = checkModel(model);
        if (opts.json) {
          process.stdout.write(
            JSON.stringify({ file, ok: report.ok, problems: report.problems }, null, 2) + "\n",
          );
        } else if (report.ok) {
          process.stdout.write(`ok: ${file}\n`);
        } else {
          const lines = report.problems.map((p) => `${file}: ${formatProblem(p)} [${p.code}]\n`);
          const n = report.problems.length;
          lines.push(`${n} problem${n === 1 ? "" : "s"} in ${file}\n`);
          process.stdout.write(lines.join(""));
        }
        return report.ok ? EXIT_OK : EXIT_FAILED;
      }),
    );
}
