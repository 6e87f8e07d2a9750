// Which schema version a node calls (one that calls no model-local function: see ir/functions.ts):
// the version in force at the imported opset, with the reason when there is none.

import type { Node } from "../ir/types.js";
import { domainLabel, normaliseDomain } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import type { CheckWarning, OpRegistry, Report } from "./report.js";

/**
 * The schema version a node (that calls no model-local function) resolves to at the opsets
 * imported by its model or function (`owner` names which, for messages). Reports a domain not
 * imported, an op unknown or not yet defined at the opset (with its first version, from the
 * registry), and a deprecated version.
 */
export function resolveSchema(
  registry: OpRegistry,
  node: Node,
  opsets: ReadonlyMap<string, number>,
  owner: "model" | "function",
  report: Report,
): OpVersion | undefined {
  const op = node.opType;
  const domain = normaliseDomain(node.domain);
  const opset = opsets.get(domain);
  if (opset === undefined) {
    report(
      "domain-not-imported",
      `${op}: domain '${domainLabel(domain)}' is not imported (the ${owner} has no opset_import for it)`,
    );
    return undefined;
  }
  const schema = registry.tryResolve(domain, op, opset);
  if (!schema) {
    if (registry.has(domain, op)) {
      const first = registry.versions(domain, op)[0]?.since;
      report(
        "op-not-in-opset",
        `${op} is not defined at ${domainLabel(domain)} opset ${opset}${first ? `; its first version is ${first}` : ""}`,
      );
    } else if (domain === "" || registry.maxOpset(domain) > 0) {
      report(
        "unknown-op",
        `unknown operator '${op}': domain '${domainLabel(domain)}' has no such operator`,
      );
    }
    return undefined;
  }
  if (schema.deprecated) {
    report(
      "deprecated-op",
      `${op}-${schema.since} is deprecated and may not be used at ${domainLabel(domain)} opset ${opset}`,
    );
  }
  return schema;
}

/**
 * Records, once per op and opset, that a node's op resolved to a runtime's own registration in a
 * standard domain (onnxruntime's LayerNormalization-1 at ai.onnx opset 14): valid for that runtime,
 * checked against its schema, and said so, since other runtimes do not know it.
 */
export function noteRuntimeOp(
  an: { registry: OpRegistry; runtimeOps: Map<string, CheckWarning> },
  schema: OpVersion,
  opsets: ReadonlyMap<string, number>,
): void {
  const domain = normaliseDomain(schema.domain);
  const opset = opsets.get(domain) ?? 0;
  const key = `${domain}\u0000${schema.name}\u0000${opset}`;
  if (an.runtimeOps.has(key)) return;
  const first = an.registry.versions(domain, schema.name)[0]?.since;
  const standard =
    first !== undefined
      ? `${domainLabel(domain)} has it from opset ${first} (convert --opset ${first} makes it that op)`
      : `${domainLabel(domain)} has no such operator`;
  an.runtimeOps.set(key, {
    where: "",
    message:
      `${schema.name} at ${domainLabel(domain)} opset ${opset} is ${schema.registeredBy}'s own ` +
      `${schema.name}-${schema.since} (${schema.source ?? schema.registeredBy}), which ${schema.registeredBy} ` +
      `registers in ${domainLabel(domain)}; ${standard}; expand lowers it to standard ops`,
  });
}
