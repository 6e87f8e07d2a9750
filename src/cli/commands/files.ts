// print, parse, info: looking at models and moving them between binary and text form.

import type { Command } from "commander";
import { statSync } from "node:fs";
import { OnnxError } from "../../errors.js";
import { loadModel, saveModel } from "../../io/files.js";
import { dtypeName } from "../../ir/dtype.js";
import { walkGraphs, walkNodes, walkTensors } from "../../ir/traverse.js";
import type { Model } from "../../ir/types.js";
import { printModel } from "../../text/print.js";
import { action, oneLine } from "../util.js";

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
          text = printModel(model, { initializers: opts.initializers });
        } catch (e) {
          // Tensor data the text cannot show faithfully: name the file as well.
          if (e instanceof OnnxError && !e.where) throw new OnnxError(e.code, e.message, file);
          throw e;
        }
        process.stdout.write(text);
      }),
    );

  program
    .command("parse")
    .description("parse ONNX text syntax and write a binary .onnx model")
    .argument("<text>", "text file (.onnxtxt)")
    .requiredOption("-o, --output <file>", "output model (.onnx, or .onnxtxt to normalise text)")
    .option("--force", "allow the output to replace the input")
    .option(
      "--external-data <name>",
      "store tensors of 1 KiB or more in this file beside the output",
    )
    .action(
      action((file: string, opts: { output: string; force?: boolean; externalData?: string }) => {
        const model = loadModel(file, { format: "text" });
        saveModel(model, opts.output, {
          inputPath: file,
          force: opts.force,
          ...(opts.externalData ? { externalData: { location: opts.externalData } } : {}),
        });
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

export interface ModelInfo {
  fileBytes: number;
  irVersion: number;
  opsetImports: { domain: string; version: number }[];
  producer?: string;
  graphName?: string;
  inputs: string[];
  outputs: string[];
  nodes: number;
  subgraphs: number;
  functions: string[];
  ops: Record<string, number>;
  initializers: number;
  tensorBytes: number;
  externalTensors: number;
}

function typeText(t: Model["graph"]["inputs"][number]["type"]): string {
  if (!t) return "?";
  if (t.kind === "tensor" || t.kind === "sparse_tensor") {
    const shape = t.shape
      ? `[${t.shape.map((d) => (d === null ? "?" : String(d))).join(",")}]`
      : "";
    return `${t.kind === "sparse_tensor" ? "sparse " : ""}${dtypeName(t.elemType)}${shape}`;
  }
  return t.kind;
}

export function modelInfo(model: Model, fileBytes: number): ModelInfo {
  const ops: Record<string, number> = {};
  let nodes = 0;
  for (const { node } of walkNodes(model)) {
    const key =
      node.domain && node.domain !== "ai.onnx" ? `${node.domain}.${node.opType}` : node.opType;
    ops[key] = (ops[key] ?? 0) + 1;
    nodes++;
  }
  let tensorBytes = 0;
  let externalTensors = 0;
  for (const t of walkTensors(model)) {
    if (t.data.kind === "raw") tensorBytes += t.data.bytes.length;
    else if (t.data.kind === "external") externalTensors++;
    else if (t.data.kind !== "none" && t.data.kind !== "string")
      tensorBytes += t.data.values.byteLength;
  }
  const sorted = Object.fromEntries(
    Object.entries(ops).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
  );
  return {
    fileBytes,
    irVersion: model.irVersion,
    opsetImports: model.opsetImports,
    ...(model.producerName
      ? { producer: `${model.producerName} ${model.producerVersion ?? ""}`.trim() }
      : {}),
    ...(model.graph.name ? { graphName: model.graph.name } : {}),
    inputs: model.graph.inputs.map((v) => `${v.name}: ${typeText(v.type)}`),
    outputs: model.graph.outputs.map((v) => `${v.name}: ${typeText(v.type)}`),
    nodes,
    subgraphs: [...walkGraphs(model)].length - 1,
    functions: model.functions.map((f) => `${f.domain}.${f.name}`),
    ops: sorted,
    initializers: model.graph.initializers.length,
    tensorBytes,
    externalTensors,
  };
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
    `initializers: ${i.initializers} (${i.tensorBytes} bytes of tensor data${i.externalTensors ? `, ${i.externalTensors} external` : ""})`,
  );
  lines.push("ops:");
  for (const [op, n] of Object.entries(i.ops)) lines.push(`  ${String(n).padStart(6)}  ${op}`);
  return lines.map(oneLine).join("\n") + "\n";
}
