// print, parse, info: looking at models and moving them between binary and text form.

import type { Command } from "commander";
import { statSync } from "node:fs";
import { OnnxError } from "../../errors.js";
import { saveModel } from "../../io/files.js";
import { modelInfo, type ModelInfo } from "../../ir/info.js";
import { printModel } from "../../text/print.js";
import { action, loadModel, oneLine } from "../util.js";
import { writtenLines } from "../report.js";
import { dataOptions, withDataOptions, type DataFlags } from "../data-options.js";

export { modelInfo, type ModelInfo };

export function registerFileCommands(program: Command): void {
  program
    .command("print")
    .description("print a model (.onnx or .onnxtxt) in ONNX text syntax")
    .argument("<model>", "model file")
    .option("--no-initializers", "elide the data of large tensors")
    .action(
      action((file: string, opts: { initializers: boolean }) => {
        const model = loadModel(file);
        let text: string;
        try {
          text = printModel(model, { initializers: opts.initializers, elideStored: true });
        } catch (e) {
          // Tensor data the text cannot show faithfully: name the file as well.
          if (e instanceof OnnxError && !e.where) throw new OnnxError(e.code, e.message, file);
          throw e;
        }
        process.stdout.write(text);
      }),
    );

  withDataOptions(
    program
      .command("parse")
      .description("parse ONNX text syntax and write a binary .onnx model")
      .argument("<text>", "text file (.onnxtxt)")
      .requiredOption("-o, --output <file>", "output model (.onnx, or .onnxtxt to normalise text)")
      .option("--force", "allow the output to replace the input"),
  ).action(
    action((file: string, opts: { output: string; force?: boolean } & DataFlags) => {
      const model = loadModel(file, { format: "text" });
      saveModel(model, opts.output, { inputPath: file, force: opts.force, ...dataOptions(opts) });
      process.stdout.write(`${writtenLines(opts.output, model, model, "parsed").join("\n")}\n`);
    }),
  );

  program
    .command("info")
    .description("summarise a model: IR version, opsets, op histogram, sizes")
    .argument("<model>", "model file")
    .option("--json", "machine-readable output")
    .action(
      action((file: string, opts: { json?: boolean }) => {
        const model = loadModel(file);
        const info = modelInfo(model, statSync(file).size);
        process.stdout.write(
          opts.json ? JSON.stringify(info, null, 2) + "\n" : formatInfo(file, info),
        );
      }),
    );
}

function formatInfo(file: string, i: ModelInfo): string {
  const lines = [
    `file:         ${file} (${i.fileBytes} bytes)`,
    `ir_version:   ${i.irVersion}`,
    `opsets:       ${i.opsetImports.map((o) => `${o.domain || "ai.onnx"} ${o.version}`).join(", ")}`,
  ];
  if (i.producer) lines.push(`producer:     ${i.producer}`);
  if (i.graphName) lines.push(`graph:        ${i.graphName}`);
  lines.push(`inputs:       ${i.inputs.join(", ") || "(none)"}`);
  lines.push(`outputs:      ${i.outputs.join(", ") || "(none)"}`);
  lines.push(`nodes:        ${i.nodes}${i.subgraphs ? ` (in ${i.subgraphs + 1} graphs)` : ""}`);
  if (i.functions.length) lines.push(`functions:    ${i.functions.join(", ")}`);
  lines.push(
    `initializers: ${i.initializers} (${i.tensorBytes} bytes of tensor data${i.externalTensors ? `, ${i.externalTensors} external: ${i.externalBytes} bytes` : ""})`,
  );
  lines.push("ops:");
  for (const [op, n] of Object.entries(i.ops)) lines.push(`  ${String(n).padStart(6)}  ${op}`);
  return lines.map(oneLine).join("\n") + "\n";
}
