// Validation of one operator file: its shape (zod, types.ts) and what zod cannot say. Loaded by
// the registry; the CLI's bundle loads it only when it has to validate (scripts/build-cli.mjs),
// since the build validates this package's schemas/ once (scripts/postbuild.mjs).

import type { z } from "zod";
import { OperatorFileSchema, type OperatorFile } from "./types.js";

/** Renders a zod issue path as `versions[3].attributes[0].type`. */
function fieldPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out === "" ? "(file)" : out;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${fieldPath(issue.path)}: ${issue.message}`;
}

/** A problem found in a file: `field: what is wrong`. */
class Problem {
  constructor(readonly text: string) {}
}

/** An operator file's parsed JSON checked: the file, or its first problem as `field: message`. */
export function validateOperatorFile(
  json: unknown,
): { file: OperatorFile; problem?: undefined } | { problem: string } {
  const r = OperatorFileSchema.safeParse(json);
  if (!r.success) return { problem: firstIssue(r.error) };
  try {
    checkConsistency(r.data);
  } catch (e) {
    if (e instanceof Problem) return { problem: e.text };
    throw e;
  }
  return { file: r.data };
}

/** What zod cannot say: ordering, uniqueness, counts and type variables that agree. */
function checkConsistency(file: OperatorFile): void {
  const fail = (field: string, problem: string): never => {
    throw new Problem(`${field}: ${problem}`);
  };
  file.versions.forEach((v, i) => {
    const at = `versions[${i}]`;
    if (i > 0 && v.since <= file.versions[i - 1]!.since)
      fail(`${at}.since`, "versions must be in increasing order of 'since'");
    const dup = (list: { name: string }[], what: string) => {
      const seen = new Set<string>();
      list.forEach((x, j) => {
        if (seen.has(x.name)) fail(`${at}.${what}[${j}].name`, `duplicate name '${x.name}'`);
        seen.add(x.name);
      });
    };
    dup(v.attributes, "attributes");
    dup(v.inputs, "inputs");
    dup(v.outputs, "outputs");
    dup(v.type_constraints, "type_constraints");
    if (v.min_inputs > v.max_inputs) fail(`${at}.min_inputs`, "greater than max_inputs");
    if (v.min_outputs > v.max_outputs) fail(`${at}.min_outputs`, "greater than max_outputs");
    const vars = new Set(v.type_constraints.map((t) => t.name));
    const formals: [string, { type: string }[]][] = [
      ["inputs", v.inputs],
      ["outputs", v.outputs],
    ];
    for (const [what, list] of formals)
      list.forEach((f, j) => {
        if (!vars.has(f.type) && !/^(tensor|seq|optional|map|sparse_tensor)\(/.test(f.type))
          fail(
            `${at}.${what}[${j}].type`,
            `'${f.type}' is neither a type constraint of this version nor a concrete type`,
          );
      });
    if (v.body && !v.function) fail(`${at}.body`, "a body is given but 'function' is false");
  });
}
