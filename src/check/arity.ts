// A node against its callee's signature: how many inputs and outputs, required ones not empty,
// and each value's type allowed by its formal's constraint, bound to one type across the node.

import type { Function, Node, Type } from "../ir/types.js";
import type { FormalSchema, OpVersion } from "../schema/types.js";
import { Unbounded } from "../schema/unbounded.js";
import type { Report } from "./report.js";
import { functionLabel } from "../ir/functions.js";
import { describeType, typeString } from "./types.js";

/** Type-constraint variable → the type bound to it in this node, and the value that bound it. */
export type Bindings = Map<string, { ts: string; name: string }>;

function formatCount(min: number, max: number): string {
  if (min === max) return `exactly ${min}`;
  if (max >= Unbounded) return `at least ${min}`;
  return `${min} to ${max}`;
}

function shortList(items: string[], n = 8): string {
  return items.length <= n
    ? items.join(", ")
    : `${items.slice(0, n).join(", ")}, ... (${items.length} in all)`;
}

/** The formal the i-th argument binds to (the last one again for a variadic tail). */
export function formalAt(formals: FormalSchema[], i: number): FormalSchema | undefined {
  if (i < formals.length) return formals[i];
  const last = formals[formals.length - 1];
  return last && last.option === "variadic" ? last : undefined;
}

/** Checks the count of a node's inputs or outputs and that required ones are given; false when it reported. */
export function checkArity(
  schema: OpVersion,
  opv: string,
  args: string[],
  role: "input" | "output",
  report: Report,
): boolean {
  const min = role === "input" ? schema.min_inputs : schema.min_outputs;
  const max = role === "input" ? schema.max_inputs : schema.max_outputs;
  const formals = role === "input" ? schema.inputs : schema.outputs;
  // Trailing empty names are omitted optional arguments.
  let n = args.length;
  while (n > 0 && args[n - 1] === "") n--;
  if (n < min || args.length > max) {
    report(
      `${role}-count`,
      `${opv} takes ${formatCount(min, max)} ${role}${max === 1 ? "" : "s"}, got ${args.length}`,
    );
    return false;
  }
  let ok = true;
  args.forEach((name, i) => {
    const f = formalAt(formals, i);
    if (f && f.option === "single" && name === "") {
      report("missing-input", `${role} ${i} ('${f.name}') of ${opv} is required but empty`);
      ok = false;
    }
  });
  const last = formals[formals.length - 1];
  if (last && last.option === "variadic") {
    const count = args.length - (formals.length - 1);
    const need = last.min_arity ?? 1;
    if (count < need && args.length >= formals.length - 1) {
      report(
        `${role}-count`,
        `${opv} needs at least ${need} '${last.name}' ${role}s, got ${Math.max(0, count)}`,
      );
      ok = false;
    }
  }
  return ok;
}

/** Counts of a call to a model-local function: no more inputs or outputs than it has. */
export function checkCallArity(node: Node, fn: Function, report: Report): void {
  if (node.inputs.length > fn.inputs.length) {
    report(
      "input-count",
      `function '${functionLabel(fn)}' takes at most ${fn.inputs.length} inputs, got ${node.inputs.length}`,
    );
  }
  if (node.outputs.length > fn.outputs.length) {
    report(
      "output-count",
      `function '${functionLabel(fn)}' has ${fn.outputs.length} outputs, the node asks for ${node.outputs.length}`,
    );
  }
}

/**
 * Checks a value's type against its formal: allowed by the constraint, and the same as the
 * other values bound to the constraint's variable. False when it reported.
 */
export function checkFormalType(
  schema: OpVersion,
  opv: string,
  formal: FormalSchema,
  name: string,
  type: Type | undefined,
  role: "input" | "output",
  bound: Bindings,
  report: Report,
): boolean {
  const ts = typeString(type);
  if (!ts) return true;
  const tc = schema.type_constraints.find((c) => c.name === formal.type);
  if (!tc) {
    if (formal.type.includes("(") && ts !== formal.type.replace(/\s+/g, "")) {
      report(
        "type-not-allowed",
        `${role} '${name}' is ${describeType(type)}, but ${opv} expects ${formal.type} for '${formal.name}'`,
      );
      return false;
    }
    return true;
  }
  if (!tc.allowed.includes(ts)) {
    report(
      "type-not-allowed",
      `${role} '${name}' is ${ts}, which ${opv} does not accept for '${formal.name}' (${tc.name} allows ${shortList(tc.allowed)})`,
    );
    return false;
  }
  if (formal.option === "variadic" && formal.homogeneous === false) return true;
  const prev = bound.get(tc.name);
  if (!prev) bound.set(tc.name, { ts, name });
  else if (prev.ts !== ts) {
    report(
      "type-mismatch",
      `${opv} needs '${prev.name}' and '${name}' to have the same type (${tc.name}), but they are ${prev.ts} and ${ts}`,
    );
    return false;
  }
  return true;
}
