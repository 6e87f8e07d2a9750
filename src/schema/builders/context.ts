// What a body builder gets: the operator version, the call's input types and its attributes with
// the schema's defaults filled in.

import { OnnxError } from "../../errors.js";
import { attr } from "../../ir/builder.js";
import type { Attribute, Node, OpsetId, Type } from "../../ir/types.js";
import { defaultAttribute } from "../defaults.js";
import type { OpVersion } from "../types.js";

export interface BodyContext {
  /** The call's input types by position; undefined where unknown (or the input is omitted). */
  inputTypes: (Type | undefined)[];
  /** The call's attributes. Inside a function an attribute may itself be a reference (refAttrName). */
  attributes: Attribute[];
  /**
   * Allow a loop (Scan) where a loop-free body exists. LogCumSumExp with a static axis length is
   * otherwise an unrolled log-depth scan of primitive ops; the Scan form ran about twice as fast
   * in onnxruntime (0.8 s against 1.7 s on [10000, 1000] float, axis -1), but its rounding error
   * grows with the axis length, which shows in double results of long axes. Default false.
   */
  preferLoops?: boolean;
  /**
   * Whether onnxruntime's QuantizeLinear / DequantizeLinear may be written as ai.onnx's (opset 13)
   * where those compute the same (8-bit, float32 scale, per tensor or per axis): a quantized model
   * then keeps its QDQ pairs (backends run them in int8; folding leaves them). False: as float32
   * arithmetic, for a backend without them (CoreML). Default true.
   */
  standardQuantOps?: boolean;
  /**
   * Which of the call's inputs are given, by position (an optional input may be omitted, by an
   * empty name or by ending the list early). Default: input i is given when i < inputTypes.length.
   */
  inputPresent?: boolean[];
  /** Which of the call's outputs are wanted, by position. Default: all. */
  outputPresent?: boolean[];
}

/** A function body: nodes over the op's formal input/output names, and the opsets they are written for. */
export interface FunctionBody {
  nodes: Node[];
  opsetImports: OpsetId[];
  /**
   * The formal names by position of the call's inputs and outputs, for ops with variadic formals
   * (SequenceMap); absent: the op's formal names.
   */
  inputs?: string[];
  outputs?: string[];
}

export class BuildArgs {
  constructor(
    readonly op: OpVersion,
    readonly ctx: BodyContext,
  ) {}

  get label(): string {
    return `${this.op.name}-${this.op.since}`;
  }

  /** The element type of input i, when known. */
  elemType(i: number): number | undefined {
    const t = this.ctx.inputTypes[i];
    return t && (t.kind === "tensor" || t.kind === "sparse_tensor") && t.elemType !== 0
      ? t.elemType
      : undefined;
  }

  /** The shape of input i, when its rank is known. */
  shape(i: number): (number | string | null)[] | undefined {
    const t = this.ctx.inputTypes[i];
    return t && t.kind === "tensor" ? t.shape : undefined;
  }

  /**
   * The attribute as the body should carry it, renamed to `as`: the call's value, or its
   * reference when the call forwards one, or the schema default; undefined when none applies.
   */
  attribute(name: string, as: string = name): Attribute | undefined {
    const given = this.ctx.attributes.find((a) => a.name === name);
    if (given) return { ...given, name: as };
    return defaultAttribute(this.op, name, as);
  }

  /** Whether the call gives input i. */
  hasInput(i: number): boolean {
    const p = this.ctx.inputPresent;
    return p ? p[i] === true : i < this.ctx.inputTypes.length;
  }

  /** Whether the call wants output i. */
  hasOutput(i: number): boolean {
    const p = this.ctx.outputPresent;
    return p ? p[i] === true : true;
  }

  /** An attribute's value (call or default) of the given type; throws when passed by reference. */
  private valueOf(name: string, type: Attribute["type"]): Attribute["value"] | undefined {
    const a = this.attribute(name);
    if (!a) return undefined;
    if (a.type !== type)
      throw new OnnxError(
        "E_MODEL",
        `attribute '${name}' of ${this.label} must be ${type === "INT" ? "an" : "a"} ${type}, not ${a.type}`,
      );
    if (a.value === undefined)
      throw new OnnxError(
        "E_UNSUPPORTED",
        `the body of ${this.label} needs the value of '${name}', which is passed by reference (@${a.refAttrName})`,
      );
    return a.value;
  }

  /** An INT attribute's value (call or default); throws when the call passes it by reference. */
  intValue(name: string): number | undefined {
    const v = this.valueOf(name, "INT");
    return v === undefined ? undefined : Number(v);
  }

  floatValue(name: string): number | undefined {
    return this.valueOf(name, "FLOAT") as number | undefined;
  }

  stringValue(name: string): string | undefined {
    return this.valueOf(name, "STRING") as string | undefined;
  }

  intsValue(name: string): number[] | undefined {
    const v = this.valueOf(name, "INTS") as bigint[] | undefined;
    return v?.map(Number);
  }
}

export type BodyBuilder = (args: BuildArgs) => FunctionBody;
