// Function bodies of operator versions, as node lists the expander can inline.
//
// Contract: the nodes read the op's formal input names and write its formal output names (an
// omitted optional input is the caller's business: map its formal name to ""). Bodies are ONNX
// text (a schema file's { kind: "text" } body, or text a builder in builders/ writes for the
// call's input types) parsed with src/text/parse.ts. Attribute references in the text (@name)
// are bound to the call: the call's value, else the schema default; an attribute the call itself
// passes by reference (inside a function) stays a reference, to the caller's name; an attribute
// with neither is left out, as ONNX says of references to absent attributes. `opsetImports`
// names the opset the body is written for; every op in it keeps that meaning up to the newest
// opset the registry knows.

import { OnnxError } from "../errors.js";
import { attr } from "../ir/builder.js";
import { bindRefs } from "../ir/rewrite.js";
import type { Attribute, Node } from "../ir/types.js";
import { parseNodeListText } from "../text/parse.js";
import { BODY_BUILDERS, BuildArgs, type BodyContext, type FunctionBody } from "./builders/index.js";
import { defaultAttribute } from "./defaults.js";
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
  let built: FunctionBody;
  if (body.kind === "builder") {
    const build = BODY_BUILDERS[body.builder];
    if (!build) throw new OnnxError("E_SCHEMA", `${label}: unknown body builder '${body.builder}'`);
    built = build(new BuildArgs(op, ctx));
  } else {
    built = {
      nodes: parseNodeListText(body.body, `${label} body`),
      opsetImports: [{ domain: "", version: body.opset }],
    };
  }
  return { ...built, nodes: bindAttributes(built.nodes, op, ctx.attributes, label) };
}

/** Replaces references to the op's attributes by the call's values (see the contract above). */
export function bindAttributes(
  nodes: Node[],
  op: OpVersion,
  call: Attribute[],
  label: string,
): Node[] {
  return bindRefs(nodes, (ref, a) => {
    const given = call.find((c) => c.name === ref);
    if (given) {
      if (given.type !== a.type)
        throw new OnnxError(
          "E_MODEL",
          `${label}: attribute '${ref}' must be ${a.type}, not ${given.type}`,
        );
      return given;
    }
    return defaultAttribute(op, ref, a.name);
  });
}
