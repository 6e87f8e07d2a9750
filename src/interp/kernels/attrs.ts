// A kernel's reads of the attributes whose defaults the schema states. The executor binds those
// defaults into the node before the kernel runs (interp/defaults.ts), so these reads take no
// default: an attribute absent here is one the node does not set and the schema gives no
// default for. A kernel called directly, outside the executor, is bound here on first read.
// An attribute that only some versions have (or state a default for) is read with `{ without }`:
// the value the versions lacking it behave as (never the schema's default, which the versions
// stating one get).

import { OnnxError } from "../../errors.js";
import { clampToNumber, getAttr } from "../../ir/attributes.js";
import type { AttrType, Node } from "../../ir/types.js";
import { attributeDefault, isAttributeRequired } from "../../schema/facts.js";
import { withDefaults } from "../defaults.js";
import type { KernelContext } from "../types.js";
import { opVersion } from "./version.js";

/** What a read needs of the kernel's context. */
type Ctx = Pick<KernelContext, "node" | "opset" | "label">;

/** The value of attribute `name` when the node has it with type `type`. */
function valueOf(node: Node, name: string, type: AttrType): unknown {
  const a = getAttr(node, name);
  return a && a.type === type ? a.value : undefined;
}

/**
 * For an attribute only some versions of the op have, or state a default for: the value a
 * version without it, or with it optional and no default, behaves as (the other versions take
 * the node's value or the schema's default; where the attribute is required, its absence is an
 * error).
 */
export interface Versioned<T> {
  without: T;
}

function read(ctx: Ctx, name: string, type: AttrType, versioned?: Versioned<unknown>): unknown {
  const v = valueOf(ctx.node, name, type);
  if (v !== undefined) return v;
  const version = opVersion(ctx);
  if (versioned && attributeDefault(version, name) === undefined) {
    if (!isAttributeRequired(version, name)) return versioned.without;
  }
  const bound = valueOf(withDefaults(ctx.node, version), name, type);
  if (bound !== undefined) return bound;
  throw new OnnxError("E_RUNTIME", `attribute '${name}' is required`, ctx.label);
}

/** INT attribute `name`, as the node sets it or as the schema's default. */
export function intAttr(ctx: Ctx, name: string, versioned?: Versioned<number>): number {
  const v = read(ctx, name, "INT", versioned);
  return typeof v === "bigint" ? clampToNumber(v) : (v as number);
}

/** FLOAT attribute `name`, as the node sets it or as the schema's default. */
export function floatAttr(ctx: Ctx, name: string, versioned?: Versioned<number>): number {
  return read(ctx, name, "FLOAT", versioned) as number;
}

/** STRING attribute `name`, as the node sets it or as the schema's default. */
export function stringAttr(ctx: Ctx, name: string, versioned?: Versioned<string>): string {
  return read(ctx, name, "STRING", versioned) as string;
}

/** INTS attribute `name`, as the node sets it or as the schema's default. */
export function intsAttr(ctx: Ctx, name: string): number[] {
  return (read(ctx, name, "INTS") as bigint[]).map(clampToNumber);
}
