// What an adapter did at one node, as `convert --plan` and the conversion's notes say it: what
// changed at that node (an attribute dropped, an input made an attribute, the node written as
// other ops), not the row's summary of everything the step may need.

import type { Attribute, Node } from "../ir/types.js";
import { printAttribute } from "../text/print.js";

function attributeText(a: Attribute): string {
  if (a.type === "TENSOR" && a.value && a.value.dims.reduce((x, y) => x * y, 1) > 8)
    return `${a.name}: tensor [${a.value.dims.join(",")}]`;
  try {
    return printAttribute(a);
  } catch {
    return a.name;
  }
}

/** The ops of `nodes` with their counts beyond one: "Constant", "Mul 2, Add". */
function opsOf(nodes: readonly Node[]): string {
  const by = new Map<string, number>();
  for (const n of nodes) by.set(n.opType, (by.get(n.opType) ?? 0) + 1);
  return [...by].map(([op, k]) => (k > 1 ? `${op} ${k}` : op)).join(", ");
}

/** The changes from `a` to `b`, one node kept as the same op: attributes, then inputs. */
function inPlace(a: Node, b: Node): string[] {
  const out: string[] = [];
  for (const x of a.attributes) {
    const y = b.attributes.find((t) => t.name === x.name);
    if (!y) out.push(`attribute '${x.name}' dropped`);
    else if (attributeText(x) !== attributeText(y))
      out.push(`attribute ${attributeText(x)} -> ${attributeText(y)}`);
  }
  for (const y of b.attributes)
    if (!a.attributes.some((x) => x.name === y.name)) out.push(`attribute ${attributeText(y)} set`);
  const n = Math.max(a.inputs.length, b.inputs.length);
  for (let i = 0; i < n; i++) {
    const x = a.inputs[i] ?? "";
    const y = b.inputs[i] ?? "";
    if (x === y) continue;
    if (!y) out.push(`input #${i} ('${x}') dropped`);
    else if (!x) out.push(`input #${i} ('${y}') added`);
    else out.push(`input #${i} '${x}' -> '${y}'`);
  }
  return out;
}

/**
 * What happened at `node` across a step its row took: `repl` as the row gave it (undefined: the
 * node stays as it is apart from its version).
 */
export function describeAdaptation(node: Node, repl: readonly Node[] | undefined): string {
  if (!repl) return "the node uses none of what changes: only its version moves";
  const same = repl.length === 1 && repl[0]!.opType === node.opType ? repl[0]! : undefined;
  if (same) {
    const parts = inPlace(node, same);
    return parts.length
      ? parts.join("; ")
      : "the node uses none of what changes: only its version moves";
  }
  // Written as other nodes, the last ones writing its outputs.
  return `written as ${repl.length} node${repl.length === 1 ? "" : "s"}: ${opsOf(repl)}`;
}
