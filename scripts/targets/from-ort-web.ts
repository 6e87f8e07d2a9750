// Writes targets/webnn.json and targets/webgpu.json from the operator tables onnxruntime-web
// ships (node_modules/onnxruntime-web/docs/webnn-operators.md and webgpu-operators.md, the dev
// dependency's version): per op its version ranges in ai.onnx and com.microsoft, and from the
// Comments column the constraints this tool's vocabulary can say (an input that must be a
// constant, "Only supports 4-D input", "'attr' == v"); a comment with anything more is kept
// whole as `partial`, so that no op the source limits is recorded as fully supported.
//
//   npx tsx scripts/targets/from-ort-web.ts        (then review `git diff targets/`)

import { readFileSync, writeFileSync } from "node:fs";
import { format, resolveConfig } from "prettier";
import { join } from "node:path";
import { SchemaRegistry } from "../../src/schema/registry.js";
import type { Constraint, OpRow, Profile } from "../../src/targets/profile.js";

const root = join(import.meta.dirname, "..", "..");
const pkg = join(root, "node_modules", "onnxruntime-web");
const version = (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string })
  .version;
const registry = SchemaRegistry.default();

/** "7-12, 13+" → ranges. */
function ranges(text: string): { from: number; to?: number }[] {
  return text
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => {
      if (r.endsWith("+")) return { from: Number(r.slice(0, -1)) };
      const [a, b] = r.split("-");
      return b === undefined
        ? { from: Number(a), to: Number(a) }
        : { from: Number(a), to: Number(b) };
    });
}

/** The input names of an op's newest version (for "input 'axes' … constant"). */
function inputNames(domain: string, op: string): string[] {
  const vs = registry.versions(domain, op);
  return vs.length ? vs[vs.length - 1]!.inputs.map((i) => i.name) : [];
}

/** Constraints a comment states in this tool's vocabulary, and whether anything is left over. */
function read(
  domain: string,
  op: string,
  comment: string,
): { constraints: Constraint[]; rest: string } {
  const constraints: Constraint[] = [];
  let rest = comment;
  const names = inputNames(domain, op);
  // Input 'a', 'b' and 'c' if present should be a constant / 'axis' input should be a constant
  const constant =
    /(?:Inputs? )?((?:'[\w]+'(?:,? (?:and )?)?)+)(?: \(if present\))?(?: input)?(?: if present)? (?:should|must) be (?:a )?constants?/g;
  for (const m of comment.matchAll(constant)) {
    let all = true;
    for (const q of m[1]!.matchAll(/'(\w+)'/g)) {
      const k = names.indexOf(q[1]!);
      if (k < 0) all = false;
      else constraints.push({ kind: "constant-input", input: k, name: q[1]! });
    }
    if (all) rest = rest.replace(m[0], "");
  }
  const rank = /Only supports (?:(\d)-D or )?(\d)-D input/;
  const r = rank.exec(rest);
  if (r) {
    const hi = Number(r[2]);
    constraints.push({ kind: "rank", input: 0, min: r[1] ? Number(r[1]) : hi, max: hi });
    rest = rest.replace(/(?:(\d)-D or )?(\d)-D input/, "");
  }
  for (const m of rest.matchAll(/'(\w+)'(?: value is| ==) '?([A-Za-z_]\w*|-?\d+(?:\.\d+)?)'?/g)) {
    const v = m[2]!;
    constraints.push({ kind: "attribute", name: m[1]!, in: [/^-?\d+$/.test(v) ? Number(v) : v] });
    rest = rest.replace(m[0], "");
  }
  const left = rest
    .replace(/Only supports|and|if present|\(weight\)|'W'/g, "")
    .replace(/[^A-Za-z]+/g, " ")
    .trim();
  return { constraints, rest: left };
}

function profileFrom(file: string, name: string, backend: string, webnn: boolean): Profile {
  const ops: Record<string, OpRow> = {};
  const lines = readFileSync(join(pkg, "docs", file), "utf8").split("\n");
  for (const line of lines) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 4 || !/^[A-Z]\w*$/.test(cells[1] ?? "")) continue;
    const op = cells[1]!;
    const comment = (webnn ? cells[4] : cells[3]) ?? "";
    for (const m of cells[2]!.matchAll(/(ai\.onnx|com\.microsoft)\(([^)]*)\)/g)) {
      const domain = m[1] === "ai.onnx" ? "" : "com.microsoft";
      // onnxruntime's internal ops listed under ai.onnx (MemcpyFromHost, …) are no ONNX ops.
      if (domain === "" && !registry.has("", op)) continue;
      const row: OpRow = { domain, versions: ranges(m[2]!), constraints: [] };
      // WebNN's table starts at 7, onnxruntime's floor for ai.onnx models ("only guarantees
      // support for models stamped with opset version 7 or above"), not at the op's version:
      // "Not 7+" is Not-1 in models of opset 7 and up. The floor is the profile's opset range.
      const first = registry.versions(domain, op)[0]?.since;
      if (webnn && domain === "" && row.versions[0]?.from === 7 && first !== undefined && first < 7)
        row.versions[0] = { ...row.versions[0], from: first };
      if (comment && !(!webnn && /^need perf optimization;?$/.test(comment))) {
        const { constraints, rest } = read(domain, op, comment);
        row.constraints = constraints;
        if (rest) row.partial = comment;
      }
      ops[domain ? `${domain}.${op}` : op] = row;
    }
  }
  const ai = Object.values(ops).filter((r) => r.domain === "");
  return {
    name,
    version: 1,
    backend,
    backendVersion: version,
    source: {
      url: `https://github.com/microsoft/onnxruntime/blob/v${version}/js/web/docs/${file}`,
      commit: `v${version} (the npm package onnxruntime-web@${version}, docs/${file})`,
      date: new Date().toISOString().slice(0, 10),
    },
    // The newest op version the table names: the backend takes models up to that opset at least.
    opset: { min: 7, max: Math.max(...ai.flatMap((r) => r.versions.map((v) => v.to ?? v.from))) },
    ops,
  };
}

for (const [file, name, backend, webnn] of [
  ["webnn-operators.md", "webnn", "onnxruntime-web, WebNN execution provider", true],
  ["webgpu-operators.md", "webgpu", "onnxruntime-web, WebGPU execution provider", false],
] as const) {
  const p = profileFrom(file, name, backend, webnn);
  // As the repository's formatter writes JSON, so that `npm test`'s format check holds.
  const out = join(root, "targets", `${name}.json`);
  const config = (await resolveConfig(out)) ?? {};
  writeFileSync(out, await format(JSON.stringify(p), { ...config, filepath: out }));
  const rows = Object.values(p.ops);
  console.log(
    `${name}: ${rows.length} ops, ${rows.reduce((n, r) => n + r.constraints.length, 0)} constraints, ${rows.filter((r) => r.partial).length} partial`,
  );
}
