// A diff as text, in the manner of a unified diff: - for what only the first model has, + for
// what only the second has, ~ for what changed.

import { countsText, diffCounts } from "./model.js";
import type { GraphDiff, ModelDiff, NodeRef, ValueChange } from "./types.js";

function nodeText(r: NodeRef): string {
  const name = r.name ? `[${r.name}] ` : "";
  const attrs = r.attributes.length ? ` <${r.attributes.join(", ")}>` : "";
  return `${name}${r.outputs.join(", ")} = ${r.op}${attrs} (${r.inputs.join(", ")})`;
}

function graphText(d: GraphDiff, indent: string): string[] {
  const lines: string[] = [];
  const values = (title: string, l: ValueChange[]) => {
    for (const v of l) {
      if (v.a !== undefined && v.b !== undefined)
        lines.push(`${indent}~ ${title} ${v.a} -> ${v.b}`);
      else if (v.a !== undefined) lines.push(`${indent}- ${title} ${v.name}: ${v.a}`);
      else lines.push(`${indent}+ ${title} ${v.name}: ${v.b}`);
    }
  };
  values("input", d.inputs);
  values("output", d.outputs);
  values("initializer", d.initializers);
  for (const h of d.hunks) {
    if (h.removed.length === 1 && h.added.length > 0) {
      lines.push(
        `${indent}~ ${nodeText(h.removed[0]!)}`,
        `${indent}    replaced by ${h.added.length} node${h.added.length === 1 ? "" : "s"}:`,
      );
      for (const r of h.added) lines.push(`${indent}    + ${nodeText(r)}`);
      continue;
    }
    if (h.removed.length && h.added.length)
      lines.push(`${indent}~ ${h.removed.length} nodes replaced by ${h.added.length}:`);
    for (const r of h.removed) lines.push(`${indent}- ${nodeText(r)}`);
    for (const r of h.added) lines.push(`${indent}+ ${nodeText(r)}`);
  }
  for (const c of d.changed) {
    lines.push(`${indent}~ ${nodeText(c.a)}`);
    for (const r of c.removed) lines.push(`${indent}    - ${r}`);
    for (const r of c.added) lines.push(`${indent}    + ${r}`);
    for (const s of c.subgraphs) {
      lines.push(`${indent}    in ${s.attribute}:`);
      lines.push(...graphText(s.diff, `${indent}      `));
    }
  }
  return lines;
}

export function formatDiff(
  d: ModelDiff,
  files: { a: string; b: string } = { a: "a", b: "b" },
): string {
  const lines = [`--- ${files.a}`, `+++ ${files.b}`];
  if (d.same) return [...lines, "no changes", ""].join("\n");
  if (d.irVersion) lines.push(`~ ir_version ${d.irVersion.a} -> ${d.irVersion.b}`);
  for (const o of d.opsetImports) {
    const dom = o.domain || "ai.onnx";
    if (o.a !== undefined && o.b !== undefined) lines.push(`~ opset ${dom} ${o.a} -> ${o.b}`);
    else if (o.a !== undefined) lines.push(`- opset ${dom} ${o.a}`);
    else lines.push(`+ opset ${dom} ${o.b}`);
  }
  for (const f of d.functions) {
    if (f.change === "removed") lines.push(`- function ${f.name}`);
    else if (f.change === "added") lines.push(`+ function ${f.name}`);
    else {
      lines.push(`~ function ${f.name}:`);
      lines.push(...graphText(f.diff!, "    "));
    }
  }
  const g = graphText(d.graph, "  ");
  if (g.length) lines.push("graph:", ...g);
  lines.push(countsText(diffCounts(d)));
  return lines.join("\n") + "\n";
}
