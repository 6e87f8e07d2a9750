// The operator version a kernel runs: the one in force at the node's imported opset, looked up
// once per (op, opset) and cached (schema/facts.ts). Kernels ask it facts such as
// `hasInput(opVersion(ctx), "axes")` instead of comparing the opset with a number.

import { OnnxError } from "../../errors.js";
import { firstVersion, versionInForce } from "../../schema/facts.js";
import type { OpVersion } from "../../schema/types.js";
import type { KernelContext } from "../types.js";

/**
 * The version of the node's op in force at `ctx.opset`. At an opset before the op's first
 * version (which the checker refuses before a run, but a kernel called directly may see) it is
 * the first version.
 */
export function opVersion(ctx: Pick<KernelContext, "node" | "opset" | "label">): OpVersion {
  const { domain, opType } = ctx.node;
  const v = versionInForce(domain, opType, ctx.opset) ?? firstVersion(domain, opType);
  if (!v) throw new OnnxError("E_RUNTIME", `operator '${opType}' has no schema`, ctx.label);
  return v;
}
