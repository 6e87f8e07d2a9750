// Writes targets/tensorrt.json from onnx-tensorrt's operator matrix (docs/operators.md of the
// onnx/onnx-tensorrt repository at a commit, given as a file): the opset range it states, per
// supported op its types and, from the Restrictions column, the constraints this tool's
// vocabulary can say (an input that must be an initializer or a build-time constant, "2D or 3D"
// pooling/convolution as input rank 4-5, "4D input", static dimensions); a restriction with more
// is kept whole as `partial`. "Y [EXPERIMENTAL]" is partial too.
//
//   git -C <onnx-tensorrt clone> show <commit>:docs/operators.md > /tmp/trt.md
//   npx tsx scripts/targets/from-tensorrt.ts /tmp/trt.md <commit> <commit date>

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { format, resolveConfig } from "prettier";
import { SchemaRegistry } from "../../src/schema/registry.js";
import type { Constraint, OpRow, Profile } from "../../src/targets/profile.js";

const [file, commit, date] = process.argv.slice(2);
if (!file || !commit || !date)
  throw new Error("usage: from-tensorrt.ts OPERATORS.md COMMIT DATE(yyyy-mm-dd)");
const root = join(import.meta.dirname, "..", "..");
const registry = SchemaRegistry.default();
const text = readFileSync(file, "utf8");

const range = /supports operators in the inclusive range of opset (\d+) to opset (\d+)/.exec(text);
if (!range) throw new Error("the opset range sentence is not in the file");
const [min, max] = [Number(range[1]), Number(range[2])];
const version = /^TensorRT ([\d.]+) supports/m.exec(text)?.[1] ?? "?";

const TYPES: Record<string, string[]> = {
  FP32: ["float"],
  FP16: ["float16"],
  BF16: ["bfloat16"],
  INT32: ["int32"],
  INT64: ["int64"],
  INT8: ["int8"],
  INT4: ["int4"],
  UINT8: ["uint8"],
  BOOL: ["bool"],
  FP8: ["float8e4m3fn"],
  DOUBLE: ["double"],
};

function constraintsOf(op: string, text: string): { constraints: Constraint[]; rest: string } {
  const names =
    registry
      .versions("", op)
      .at(-1)
      ?.inputs.map((i) => i.name) ?? [];
  const constraints: Constraint[] = [];
  let rest = text;
  for (const m of text.matchAll(
    /`(\w+)`(?: input)? must be (?:an initializer|a constant tensor|a build-time constant)\.?/g,
  )) {
    const k = names.indexOf(m[1]!);
    if (k < 0) continue;
    constraints.push({ kind: "constant-input", input: k, name: m[1]! });
    rest = rest.replace(m[0], "");
  }
  const twoOrThree = /2D or 3D (?:[Pp]ooling|convolutions|deconvolutions) only\.?/.exec(rest);
  if (twoOrThree) {
    constraints.push({ kind: "rank", input: 0, min: 4, max: 5 });
    rest = rest.replace(twoOrThree[0], "");
  }
  const four = /Input must be 4D input\.?/.exec(rest);
  if (four) {
    constraints.push({ kind: "rank", input: 0, min: 4, max: 4 });
    rest = rest.replace(four[0], "");
  }
  const fixed = /`input` must have static dimensions\.?/.exec(rest);
  if (fixed) {
    constraints.push({ kind: "static-dims" });
    rest = rest.replace(fixed[0], "");
  }
  return { constraints, rest: rest.replace(/<br \/>/g, " ").trim() };
}

const ops: Record<string, OpRow> = {};
for (const line of text.split("\n")) {
  const c = line.split("|").map((x) => x.trim());
  if (c.length < 4 || !/^[A-Z]\w*$/.test(c[1] ?? "") || !c[2]?.startsWith("Y")) continue;
  const op = c[1]!;
  const atMax = registry.tryResolveStandard("", op, max);
  if (!atMax) continue; // an op the schemas do not have (ImageScaler, ParametricSoftplus, …)
  const types = [...new Set((c[3] ?? "").split(",").flatMap((t) => TYPES[t.trim()] ?? []))];
  const { constraints, rest } = constraintsOf(op, c[4] ?? "");
  const partial = [c[2]!.includes("EXPERIMENTAL") ? "experimental" : "", rest]
    .filter(Boolean)
    .join("; ");
  ops[op] = {
    domain: "",
    versions: [{ from: 1, to: atMax.since }],
    ...(types.length ? { types } : {}),
    constraints,
    ...(partial ? { partial } : {}),
  };
}

const profile: Profile = {
  name: "tensorrt",
  version: 1,
  backend: "NVIDIA TensorRT, through onnx-tensorrt",
  backendVersion: version,
  source: {
    url: `https://github.com/onnx/onnx-tensorrt/blob/${commit}/docs/operators.md`,
    commit,
    date,
  },
  opset: { min, max },
  ops,
};
const out = join(root, "targets", "tensorrt.json");
const config = (await resolveConfig(out)) ?? {};
writeFileSync(out, await format(JSON.stringify(profile), { ...config, filepath: out }));
const rows = Object.values(ops);
console.log(
  `tensorrt ${version}: opset ${min}-${max}, ${rows.length} ops, ${rows.reduce((n, r) => n + r.constraints.length, 0)} constraints, ${rows.filter((r) => r.partial).length} partial`,
);
