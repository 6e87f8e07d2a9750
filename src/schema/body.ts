// Function bodies of operator versions, as node lists the expander can inline.
//
// Contract: the nodes read the op's formal input names and write its formal output names (an
// omitted optional input is the caller's business: map its formal name to ""). Builder bodies
// come back with the call's attribute values substituted (schema defaults filled in), except an
// attribute the call itself passes by reference, which stays a reference (refAttrName) to the
// same name. `opsetImports` names the opset the body is written for; every op in it keeps that
// meaning up to the newest opset the registry knows.

import { OnnxError } from "../errors.js";
import { BODY_BUILDERS, BuildArgs, type BodyContext, type FunctionBody } from "./builders/index.js";
import type { OpVersion } from "./types.js";

export type { BodyContext, FunctionBody } from "./builders/index.js";

/** Whether functionBody() can produce a body for this version. */
export function hasFunctionBody(op: OpVersion): boolean {
  return op.body !== undefined && (op.body.kind !== "builder" || op.body.builder in BODY_BUILDERS);
}

export function functionBody(op: OpVersion, ctx: BodyContext): FunctionBody {
  const label = `${op.name}-${op.since}`;
  const body = op.body;
  if (!body) throw new OnnxError("E_UNSUPPORTED", `${label} has no function body`);
  if (body.kind === "builder") {
    const build = BODY_BUILDERS[body.builder];
    if (!build) throw new OnnxError("E_SCHEMA", `${label}: unknown body builder '${body.builder}'`);
    return build(new BuildArgs(op, ctx));
  }
  // No schema file holds a text body yet; they need the ONNX text parser (src/text/parse.ts).
  throw new OnnxError("E_UNSUPPORTED", `${label}: text function bodies are not supported yet`);
}
