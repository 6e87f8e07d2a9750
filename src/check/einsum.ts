// Einsum equations: what makes one valid, shared by the checker (with the ranks it knows) and the
// interpreter's kernel (with the actual ranks), so that both refuse the same equations; and the
// output shape the checker infers.

import type { Dim } from "../ir/types.js";

/** One side of an equation: its letters in order, with "..." kept as one item. */
function splitTerm(term: string): string[] | string {
  const parts = term.split("...");
  if (parts.length > 2) return `'${term}' has more than one ellipsis`;
  const out: string[] = [];
  for (let k = 0; k < parts.length; k++) {
    if (k > 0) out.push("...");
    for (const ch of parts[k]!) {
      if (!/[A-Za-z]/.test(ch))
        return ch === "."
          ? `'${term}' has a '.' outside an ellipsis ('...')`
          : `'${term}' has '${ch}', which is not a letter`;
      out.push(ch);
    }
  }
  return out;
}

/**
 * Why an Einsum equation cannot be used with `nInputs` operands of the given ranks (undefined:
 * unknown), or undefined when it can. The rules: one term per operand, letters and at most one
 * "..." per term, as many letters as the operand's rank (at most, with an ellipsis), and an
 * output (after "->") whose letters are distinct and each appear in some input, with "..." only
 * if an input has one.
 */
export function einsumEquationError(
  equation: string,
  nInputs: number,
  ranks: readonly (number | undefined)[] = [],
): string | undefined {
  const eq = equation.replace(/\s+/g, "");
  if (eq === "") return "the equation is empty";
  const sides = eq.split("->");
  if (sides.length > 2) return `equation '${eq}' has more than one '->'`;
  const terms = sides[0]!.split(",");
  if (terms.length !== nInputs)
    return `equation '${eq}' has ${terms.length} input term${terms.length === 1 ? "" : "s"}, the node ${nInputs} input${nInputs === 1 ? "" : "s"}`;
  const seen = new Set<string>();
  let anyEllipsis = false;
  for (let i = 0; i < terms.length; i++) {
    const labels = splitTerm(terms[i]!);
    if (typeof labels === "string") return `equation '${eq}': ${labels}`;
    const ellipsis = labels.includes("...");
    anyEllipsis ||= ellipsis;
    const letters = labels.filter((l) => l !== "...");
    for (const l of letters) seen.add(l);
    const rank = ranks[i];
    if (rank === undefined) continue;
    if (ellipsis ? letters.length > rank : letters.length !== rank)
      return `equation '${eq}': term '${terms[i]}' names ${letters.length} ax${letters.length === 1 ? "is" : "es"}${ellipsis ? " besides its ellipsis" : ""}, but input ${i} has rank ${rank}`;
  }
  if (sides.length === 1) return undefined;
  const out = splitTerm(sides[1]!);
  if (typeof out === "string") return `equation '${eq}': output ${out}`;
  const outSeen = new Set<string>();
  for (const l of out) {
    if (l === "...") {
      if (!anyEllipsis)
        return `equation '${eq}': the output has an ellipsis, but no input term has one`;
      continue;
    }
    if (outSeen.has(l)) return `equation '${eq}': output letter '${l}' appears twice`;
    outSeen.add(l);
    if (!seen.has(l)) return `equation '${eq}': output letter '${l}' is in no input term`;
  }
  return undefined;
}

/** Two sizes of one Einsum label or ellipsis axis: a number beats 1 and symbols, equal ones stay. */
function joinDim(a: Dim | undefined, b: Dim): Dim {
  if (a === undefined || a === b) return b;
  if (a === 1) return b;
  if (b === 1) return a;
  if (typeof a === "number") return a;
  if (typeof b === "number") return b;
  return null;
}

/**
 * The output shape of an Einsum whose equation is valid for the given input shapes (see
 * einsumEquationError), or undefined when a shape is unknown. Without "->", the output is the
 * ellipsis axes then the labels that appear once, in alphabetical order (lowercase only).
 */
export function einsumOutputShape(
  equation: string,
  shapes: (Dim[] | undefined)[],
): Dim[] | undefined {
  const eq = equation.replace(/\s+/g, "");
  const sides = eq.split("->");
  const terms = sides[0]!.split(",");
  const sizes = new Map<string, Dim>();
  const counts = new Map<string, number>();
  let ellipsis: Dim[] = [];
  for (let i = 0; i < terms.length; i++) {
    const labels = splitTerm(terms[i]!);
    const s = shapes[i];
    if (typeof labels === "string" || !s) return undefined;
    const letters = labels.filter((l) => l !== "...").length;
    const er = s.length - letters;
    let k = 0;
    for (const l of labels) {
      if (l === "...") {
        const dims = s.slice(k, k + er);
        // Ellipsis axes broadcast, aligned on the right.
        const n = Math.max(dims.length, ellipsis.length);
        const out: Dim[] = [];
        for (let j = 0; j < n; j++) {
          const a = ellipsis[ellipsis.length - n + j];
          const b = dims[dims.length - n + j];
          out.push(b === undefined ? (a ?? null) : joinDim(a, b));
        }
        ellipsis = out;
        k += er;
        continue;
      }
      sizes.set(l, joinDim(sizes.get(l), s[k]!));
      counts.set(l, (counts.get(l) ?? 0) + 1);
      k++;
    }
  }
  if (sides.length === 2) {
    const out = splitTerm(sides[1]!);
    if (typeof out === "string") return undefined;
    return out.flatMap((l) => (l === "..." ? ellipsis : [sizes.get(l) ?? null]));
  }
  const once = [...counts].filter(([, n]) => n === 1).map(([l]) => l);
  if (once.some((l) => l !== l.toLowerCase())) return undefined;
  return [...ellipsis, ...once.sort().map((l) => sizes.get(l)!)];
}
