// The element type a body computes in, and the casts in and out of it.
//
// Every builder of a float-typed op follows one rule (SEMANTICS.md "Function bodies"):
//
//   float, double        computed in the type itself
//   float16, bfloat16    inputs cast up to float, computed, the result cast back once (the
//                        kernels compute in at least float32 and round once)
//   integer types        computed in the type itself where the op allows them
//   unknown              computed in the type itself; constants are made with CastLike from the
//                        reference input, so that one body is valid for every type
//
// Attribute values are written as references (`Constant <value_float: float = @alpha>`), which
// functionBody() binds to the call's value, the default, or the caller's own reference.

import { dtypeName } from "../../ir/dtype.js";
import { DataType } from "../../ir/types.js";
import { floatLiteral, TextWriter } from "./writer.js";
import type { BuildArgs } from "./context.js";

export const FLOAT_TYPES: readonly number[] = [
  DataType.FLOAT,
  DataType.DOUBLE,
  DataType.FLOAT16,
  DataType.BFLOAT16,
];

export function isHalf(elem: number | undefined): boolean {
  return elem === DataType.FLOAT16 || elem === DataType.BFLOAT16;
}

export class Compute {
  /** The element type of the reference input (undefined: unknown). */
  readonly elem: number | undefined;
  /** The type the body computes in (undefined: the input's own type, unknown here). */
  readonly type: number | undefined;
  private readonly casted = new Map<string, string>();

  constructor(
    readonly w: TextWriter,
    readonly args: BuildArgs,
    /** The formal input whose type is T, and its position. */
    readonly ref: string,
    refIndex = 0,
    /** The type to compute half types in (float unless a stash_type says otherwise). */
    halfIn: number = DataType.FLOAT,
  ) {
    this.elem = args.elemType(refIndex);
    this.type = isHalf(this.elem) ? halfIn : this.elem;
  }

  /** Whether inputs are cast before computing (half types). */
  get widened(): boolean {
    return this.type !== this.elem;
  }

  /** A formal input of type T, in the compute type (cast once, however often asked for). */
  in(formal: string): string {
    if (!this.widened) return formal;
    let c = this.casted.get(formal);
    if (c === undefined) this.casted.set(formal, (c = this.w.cast(formal, this.type!)));
    return c;
  }

  /** A scalar constant of the compute type. */
  k(value: number, hint = "k"): string {
    if (this.type !== undefined && !FLOAT_TYPES.includes(this.type))
      return this.w.constant(`${dtypeName(this.type)} {${Math.trunc(value)}}`, hint);
    if (this.type !== undefined) return this.w.scalar(this.type, value, hint);
    return this.like(this.w.constant(`float {${floatLiteral(value)}}`, hint));
  }

  /** A FLOAT attribute of the call as a scalar of the compute type (bound by functionBody). */
  attr(name: string): string {
    const c = this.w.op("Constant", [], `value_float: float = @${name}`, this.w.fresh(name));
    return this.to(c, DataType.FLOAT);
  }

  /** A value of type `from` converted to the compute type. */
  to(value: string, from: number): string {
    if (this.type === from) return value;
    if (this.type === undefined) return this.like(value);
    return this.w.cast(value, this.type);
  }

  private like(value: string): string {
    return this.w.op("CastLike", [value, this.ref]);
  }

  /** The name the last op should write: the formal output itself unless a cast follows. */
  target(formal: string): string {
    return this.widened ? this.w.fresh(`${formal.toLowerCase()}_wide`) : formal;
  }

  /** Finishes output `formal` from `value` (written by target()): the cast back, if any. */
  out(value: string, formal: string): void {
    if (value === formal) return;
    if (this.widened) this.w.op("Cast", [value], `to: int = ${this.elem}`, formal);
    else this.w.op("Identity", [value], "", formal);
  }
}

/**
 * log1p(e) for e in [0, 1], exact to a few ulp: e where 1 + e rounds to 1, else
 * log(u) * e / (u - 1) with u = 1 + e (plain log(1 + e) loses every digit of a small e).
 */
export function log1p(c: Compute, e: string): string {
  const w = c.w;
  const one = c.k(1, "one");
  const u = w.op("Add", [e, one]);
  const den = w.op("Sub", [u, one]);
  const ratio = w.op("Div", [w.op("Mul", [w.op("Log", [u]), e]), den]);
  return w.op("Where", [w.op("Equal", [den, c.k(0, "zero")]), e, ratio]);
}

/** softplus(x) = log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)). */
export function softplus(c: Compute, x: string, out?: string): string {
  const w = c.w;
  const e = w.op("Exp", [w.op("Neg", [w.op("Abs", [x])])]);
  return w.op("Add", [w.op("Max", [x, c.k(0, "zero")]), log1p(c, e)], "", out);
}

/** The opset a body is written for: `base`, or 18 when the type is unknown (CastLike, Where-16). */
export function bodyOpset(c: Compute, base: number): number {
  return c.type === undefined ? Math.max(base, 18) : base;
}
