// Which schema version a node calls (one that calls no model-local function: see ir/functions.ts):
// the version in force at the imported opset, with the reason when there is none.

import type { Node } from "../ir/types.js";
import { domainLabel, normaliseDomain } from "../schema/registry.js";
import type { OpVersion } from "../schema/types.js";
import type { OpRegistry, Report } from "./report.js";

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
