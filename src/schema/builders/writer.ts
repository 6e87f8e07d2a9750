// Function bodies are written as ONNX text (the syntax of onnx's docs/Syntax.md) and parsed with
// src/text/parse.ts, so that a body reads like the operator page's. This helper writes the lines:
// fresh value names, Constant nodes, typed literals, subgraphs.

import { dtypeName } from "../../ir/dtype.js";
import { DataType, type Node } from "../../ir/types.js";
import { parseNodeListText } from "../../text/parse.js";

/** A number as a float literal of the text syntax. */
export function floatLiteral(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return Number.isInteger(v) ? v.toFixed(1) : String(v);
}

/**
 * 1 where the float32 value `d` (0 or positive) is positive, 0 where it is 0, NaN for NaN, in
 * arithmetic every target has (no Equal or Where, which CoreML and NNAPI lack): d · 2^100 · 2^100
 * clipped to [0, 1] is at least 1 for the least subnormal (2^-149 · 2^200) and 0 for 0.
 */
export function positiveIndicator(w: TextWriter, d: string, zero: string, one: string): string {
  const big = w.scalar(DataType.FLOAT, 2 ** 100, "p100");
  return w.op("Clip", [w.op("Mul", [w.op("Mul", [d, big]), big]), zero, one]);
}

export class TextWriter {
  private readonly lines: string[] = [];
  private count = 0;

  /** `prefix` starts every intermediate name, so they never meet the op's formal names. */
  constructor(private readonly prefix: string) {}

  fresh(hint: string): string {
    return `${this.prefix}${hint}${this.count++}`;
  }

  /** Adds `out = Op <attrs> (inputs)`; returns the output name. "" in inputs omits one. */
  op(opType: string, inputs: string[], attrs = "", out?: string): string {
    const output = out ?? this.fresh(opType.toLowerCase());
    this.opN(opType, inputs, [output], attrs);
    return output;
  }

  opN(opType: string, inputs: string[], outputs: string[], attrs = ""): string[] {
    const a = attrs ? ` <${attrs}>` : "";
    this.lines.push(`${outputs.join(", ")} = ${opType}${a} (${inputs.join(", ")})`);
    return outputs;
  }

  /** A statement written elsewhere (a printed node), added as it is. */
  raw(line: string): void {
    this.lines.push(line);
  }

  /** A Constant whose value is a tensor literal such as `int64[2] {3, 0}` or `double {-inf}`. */
  constant(literal: string, hint = "c"): string {
    return this.op("Constant", [], `value = ${literal}`, this.fresh(hint));
  }

  ints(values: number[], hint = "i"): string {
    return this.constant(`int64[${values.length}] {${values.join(", ")}}`, hint);
  }

  scalar(elem: number, value: number, hint = "s"): string {
    return this.constant(`${dtypeName(elem)} {${floatLiteral(value)}}`, hint);
  }

  cast(input: string, to: number): string {
    return this.op("Cast", [input], `to: int = ${to}`);
  }

  /** The statements written so far, one a line. */
  text(indent = ""): string {
    return this.lines.map((l) => `${indent}${l}\n`).join("");
  }

  /** A graph literal for a GRAPH attribute: `name (inputs) => (outputs) { statements }`. */
  graph(name: string, inputs: string[], outputs: string[]): string {
    return `${name} (${inputs.join(", ")}) => (${outputs.join(", ")}) {\n${this.text("  ")}}`;
  }

  nodes(where: string): Node[] {
    return parseNodeListText(this.text(), where);
  }
}
