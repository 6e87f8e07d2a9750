// Opset imports: which version of each domain a model, function or graph is written for. Every
// layer reads them through these functions, so "ai.onnx" and "" are always the same domain.

import type { Function, Graph, OpsetId } from "./types.js";

/** The domain as registries and opset maps key it: "ai.onnx" is written "". */
export function normaliseDomain(domain: string): string {
  return domain === "ai.onnx" ? "" : domain;
}

/** How a domain is named in messages. */
export function domainLabel(domain: string): string {
  return domain === "" ? "ai.onnx" : domain;
}

/** Whether the domain is ai.onnx (written "" or "ai.onnx"). */
export const isOnnxDomain = (domain: string): boolean => domain === "" || domain === "ai.onnx";

/**
 * The opset in force for each domain (normalised), as the imports say: the first import of a
 * domain counts (a second is an error the checker reports). With `fallback`, its domains that the
 * imports leave out are kept too.
 */
export function opsetMap(
  imports: readonly OpsetId[],
  fallback?: ReadonlyMap<string, number>,
): Map<string, number> {
  const m = new Map<string, number>();
  for (const o of imports) {
    const d = normaliseDomain(o.domain);
    if (!m.has(d)) m.set(d, o.version);
  }
  if (fallback) for (const [d, v] of fallback) if (!m.has(d)) m.set(d, v);
  return m;
}

/**
 * The opsets a function's body is read at: its own imports, else (a function that imports
 * nothing) the opsets of the model, `outer`. A graph (the main graph, or a subgraph of it) is
 * read at the model's.
 */
export function functionOpsets(
  f: Pick<Function, "opsetImports"> | Graph,
  outer: Map<string, number>,
): Map<string, number> {
  return "opsetImports" in f && f.opsetImports.length ? opsetMap(f.opsetImports) : outer;
}

/** The imported ai.onnx opset, or undefined when ai.onnx is not imported. */
export function onnxOpset(imports: readonly OpsetId[]): number | undefined {
  return imports.find((o) => isOnnxDomain(o.domain))?.version;
}

/** The imports with ai.onnx at `version` (other domains as they are). */
export function withOnnxOpset(imports: OpsetId[], version: number): OpsetId[] {
  return imports.map((o) => (isOnnxDomain(o.domain) ? { ...o, version } : o));
}

/** The imports with each domain of `added` not yet imported added at its version. */
export function withOpsets(imports: OpsetId[], added: ReadonlyMap<string, number>): OpsetId[] {
  const have = new Set(imports.map((o) => normaliseDomain(o.domain)));
  const out = [...imports];
  for (const [domain, version] of added) if (!have.has(domain)) out.push({ domain, version });
  return out;
}
