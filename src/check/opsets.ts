// The one rule for opset imports that every command applies to a model it reads, before anything
// else looks at the model: each domain imported once, at a whole version from 1 up to the newest
// this tool knows for a domain of the registry (ai.onnx, ai.onnx.ml, ...), and at most 2^31 - 1
// for any other domain. A version outside that would make each command guess differently (one
// reads a duplicate's first import, another its last; one resolves ai.onnx 30 as 29).

import { OnnxError } from "../errors.js";
import type { Model, OpsetId } from "../ir/types.js";
import { SchemaRegistry, domainLabel, normaliseDomain } from "../schema/registry.js";

/** The largest opset version a domain this tool does not know may be imported at. */
export const MAX_OPSET_VERSION = 2 ** 31 - 1;

function importIssues(imports: OpsetId[], owner: string, registry: SchemaRegistry): string[] {
  const out: string[] = [];
  const seen = new Map<string, number>();
  for (const { domain, version } of imports) {
    const d = normaliseDomain(domain);
    const newest = registry.maxOpset(d);
    const label = newest > 0 ? domainLabel(d) : `domain '${d}'`;
    const first = seen.get(d);
    if (first !== undefined) {
      out.push(`${owner} imports ${label} twice (opsets ${first} and ${version})`);
      continue;
    }
    seen.set(d, version);
    const max = newest > 0 ? newest : MAX_OPSET_VERSION;
    if (Number.isInteger(version) && version >= 1 && version <= max) continue;
    out.push(
      newest > 0
        ? `${owner} imports ${label} opset ${version}, which is not one this tool knows (1 to ${newest})`
        : `${owner} imports ${label} at opset ${version}; an opset version is a whole number from 1 to ${MAX_OPSET_VERSION}`,
    );
  }
  return out;
}

/** Every way the opset imports of a model and of its local functions break the rule, in order. */
export function opsetImportIssues(
  model: Model,
  registry: SchemaRegistry = SchemaRegistry.default(),
): string[] {
  const out = importIssues(model.opsetImports, "the model", registry);
  for (const f of model.functions) {
    const owner = `function '${f.domain ? `${f.domain}.` : ""}${f.name}'`;
    for (const issue of importIssues(f.opsetImports, owner, registry)) out.push(issue);
  }
  return out;
}

/** Refuses, with one line naming the first issue (and how many more), a model that breaks the rule. */
export function assertOpsetImports(
  model: Model,
  where?: string,
  registry: SchemaRegistry = SchemaRegistry.default(),
): void {
  const issues = opsetImportIssues(model, registry);
  if (issues.length === 0) return;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more opset import problems)` : "";
  throw new OnnxError("E_MODEL", `${issues[0]}${more}`, where);
}
