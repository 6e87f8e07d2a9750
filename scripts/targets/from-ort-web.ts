// Writes targets/webnn.json and targets/webgpu.json for the onnxruntime-web release package.json
// pins as a dev dependency (node_modules/onnxruntime-web).
//
// webnn: from the operator table the package ships (docs/webnn-operators.md): per op its version
// ranges in ai.onnx and com.microsoft, and from the Comments column the constraints this tool's
// vocabulary says. A comment of the simple forms (an input that must be a constant, "Only
// supports 4-D input", "'attr' == v") is read here; every other is read by hand into NOTES below,
// keyed by a digest of the comment, so that a rerun on a changed table stops at the comment to
// read again.
//
// webgpu: from the release itself. The package's docs/webgpu-operators.md is JSEP's table (the
// TypeScript kernels of the default bundle); the judge runs the C++ WebGPU provider of
// `onnxruntime-web/webgpu` (scripts/targets/webgpu-judge.ts), whose op set differs. Its ops and
// their versions are those scripts/targets/webgpu-ops.ts saw it place on WebGPU
// (test/data/targets/webgpu-ops.json: a since-version is supported when a case of the op was placed
// on WebGPU at a probed opset where it is in force, and on CPU at none), its element types those
// scripts/targets/webgpu-kernels.ts saw its kernels run (test/data/targets/webgpu-kernels.json;
// an op not type-probed has none, any type); Gather's and GatherElements' data types, narrower
// than their indices', are an input-types constraint besides. JSEP's comments read by hand
// (NOTES.webgpu, each still checked against the table's comment) are kept for the ops both
// providers run: a placement says nothing of them (they are limits of a kernel's run, not of its
// registration).
//
//   npx tsx scripts/targets/from-ort-web.ts        (then review `git diff targets/`)

import { readFileSync, writeFileSync } from "node:fs";
import { format, resolveConfig } from "prettier";
import { join } from "node:path";
import { SchemaRegistry } from "../../src/schema/registry.js";
import type { Constraint, OpRow, Profile } from "../../src/targets/profile.js";
import {
  absentInputs,
  absentOutputs,
  constantInputs,
  digest,
  targetsDir,
  type Limits,
} from "./common.js";
import type { KernelTypes } from "./webgpu-kernels.js";
import type { OpsProbe } from "./webgpu-ops.js";

const root = join(import.meta.dirname, "..", "..");
const pkg = join(root, "node_modules", "onnxruntime-web");
const version = (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string })
  .version;
const registry = SchemaRegistry.default();
const kernels = JSON.parse(
  readFileSync(join(root, "test", "data", "targets", "webgpu-kernels.json"), "utf8"),
) as KernelTypes;
const placed = JSON.parse(
  readFileSync(join(root, "test", "data", "targets", "webgpu-ops.json"), "utf8"),
) as OpsProbe;
for (const [file, release] of [
  ["webgpu-kernels", kernels.release],
  ["webgpu-ops", placed.release],
] as const)
  if (release !== version)
    throw new Error(
      `test/data/targets/${file}.json is of onnxruntime-web ${release}, not ${version}: rerun scripts/targets/${file}.ts`,
    );

/** The element types the WebGPU kernels of an ai.onnx op run (undefined: not probed). */
function webgpuTypes(op: string): { types: string[]; data?: string[] } | undefined {
  if (op === "Cast") {
    // the types it casts from (a row has one list: a type it casts only to, as int64 on the C++
    // provider without its int64 option, would let in the Cast from it)
    const ts = new Set(kernels.cast.map((p) => p.split(">")[0]!));
    return { types: [...ts].sort() };
  }
  const k = kernels.ops[op];
  if (!k || !k.types.length) return undefined;
  if (!k.indices) return { types: [...k.types].sort() };
  return { types: [...new Set([...k.types, ...k.indices])].sort(), data: [...k.types].sort() };
}

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

const attr = (name: string, values: (string | number)[]): Constraint => ({
  kind: "attribute",
  name,
  in: values,
});
const rank4: Constraint = { kind: "rank", input: 0, min: 4, max: 4 };
const MS = "com.microsoft";
const activations = attr("activations", ["Relu", "Tanh", "Sigmoid"]);
const recurrent = (op: string): Constraint[] => [
  attr("layout", [0]),
  { kind: "attribute", name: "clip", absent: true },
  activations,
  { kind: "same-activations" },
  ...constantInputs("", op, ["sequence_lens"]),
  { kind: "input-values", input: 4, name: "sequence_lens", equalsDim: { input: 0, axis: 0 } },
];

/** The comments read by hand, by profile and op (`domain.Op` for other domains). */
const NOTES: Record<string, Record<string, Limits>> = {
  webnn: {
    AveragePool: { note: "e3a2f373", constraints: [rank4] }, // a 4-D input has a 2-D kernel
    BatchNormalization: {
      note: "91362978",
      constraints: [attr("training_mode", [0]), { kind: "max-outputs", max: 1 }],
    },
    Dropout: {
      note: "ad9caa60",
      constraints: [{ kind: "input-values", input: 2, name: "training_mode", notIn: [1] }],
    },
    [`${MS}.GroupQueryAttention`]: {
      note: "7f10908a",
      constraints: [
        ...constantInputs(MS, "GroupQueryAttention", ["total_sequence_length"]),
        { kind: "dims-equal", input: 3, output: 1, axis: 2 },
      ],
    },
    [`${MS}.GatherBlockQuantized`]: {
      note: "f9710d6e",
      // no schema here for it: onnxruntime's contrib op reads data, indices, scales, zero_points
      constraints: [
        { kind: "constant-input", input: 0, name: "data" },
        { kind: "constant-input", input: 3, name: "zero_points" },
      ],
      caveat: "4-bit data packed in uint8: quantize_axis the last axis",
    },
    // X is [seq_length, batch_size, input_size] (layout 0): sequence_lens holds its first dim
    GRU: { note: "1587cfea", constraints: recurrent("GRU") },
    LSTM: { note: "f6ec459a", constraints: [...recurrent("LSTM"), attr("input_forget", [0])] },
    LpPool: { note: "bd96e91a", constraints: [rank4, attr("p", [2])] },
    [`${MS}.MatMulNBits`]: {
      note: "f7b46153",
      constraints: [
        ...constantInputs(MS, "MatMulNBits", ["B", "zero_points"]),
        ...absentInputs(MS, "MatMulNBits", ["g_idx"]),
        attr("bits", [4, 8]),
      ],
    },
    MaxPool: {
      note: "4f446cd8",
      constraints: [
        rank4,
        { kind: "attribute", name: "storage_order", notIn: [1] },
        { kind: "max-outputs", max: 1 },
      ],
    },
    [`${MS}.MultiHeadAttention`]: {
      note: "986f2d71",
      constraints: [
        ...absentInputs(MS, "MultiHeadAttention", [
          "bias",
          "key_padding_mask",
          "past_sequence_length",
          "cache_indirection",
        ]),
        ...absentOutputs(MS, "MultiHeadAttention", ["qk"]),
      ],
    },
    Pad: { note: "8b122526", constraints: [{ kind: "attribute", name: "mode", notIn: ["wrap"] }] },
    Reshape: {
      note: "169a81a6",
      constraints: [
        ...constantInputs("", "Reshape", ["shape"]),
        { kind: "input-values", input: 1, name: "shape", notIn: [0] },
      ],
    },
    Resize: {
      note: "472e34ff",
      constraints: [
        rank4,
        attr("antialias", [0]),
        attr("exclude_outside", [0]),
        attr("keep_aspect_ratio_policy", ["stretch"]),
        attr("mode", ["linear", "nearest"]),
        ...constantInputs("", "Resize", ["scales", "sizes"]),
      ],
    },
    Trilu: { note: "614a557d", constraints: constantInputs("", "Trilu", ["k"]) },
  },
  webgpu: {
    [`${MS}.Attention`]: {
      note: "89c3edfb",
      constraints: [
        ...absentInputs(MS, "Attention", ["mask_index", "past"]),
        ...absentOutputs(MS, "Attention", ["present"]),
      ],
    },
    // "activation" is that of onnxruntime's fused internal ops; these ops have none
    AveragePool: { note: "4a842c82", informative: true },
    MaxPool: { note: "4a842c82", informative: true },
    Conv: { note: "94e5ddeb", constraints: [{ kind: "rank", input: 0, min: 3, max: 4 }] },
    ConvTranspose: { note: "9794b01f", constraints: [{ kind: "rank", input: 0, min: 3, max: 4 }] },
    [`${MS}.MultiHeadAttention`]: {
      note: "89c3edfb",
      constraints: [
        ...absentInputs(MS, "MultiHeadAttention", ["key_padding_mask", "past_key", "past_value"]),
        ...absentOutputs(MS, "MultiHeadAttention", ["present_key", "present_value"]),
      ],
    },
    // the op runs in the EP on the shapes alone: no kernel, and no node left to the CPU
    Reshape: { note: "3a58405f", informative: true },
    Shape: { note: "a6c48866", informative: true },
    Resize: {
      note: "e1b967fd",
      constraints: [
        {
          kind: "any",
          of: [
            [
              {
                kind: "attribute",
                name: "coordinate_transformation_mode",
                notIn: ["align_corners"],
              },
            ],
            [{ kind: "not-downsampling" }],
          ],
        },
      ],
    },
    Transpose: { note: "966ee567", informative: true },
  },
};

/** webgpu's rows against JSEP's table: ops the probe found that the table lacks, and the reverse. */
const vsTable = { added: [] as string[], removed: [] as string[] };

/**
 * The since-versions of an op the C++ provider runs: one placed on WebGPU at a probed opset where
 * it is in force and on CPU at none (a version no case reached is left out). An op the registry
 * has no schema of (BiasSplitGelu, GatherBlockQuantized) is at version 1.
 */
function probedVersions(r: OpsProbe["ops"][string], op: string): OpRow["versions"] {
  const since = registry.versions(r.domain, op).map((v) => v.since);
  if (!since.length) return r.webgpu.length && !r.cpu.length ? [{ from: 1 }] : [];
  const out: OpRow["versions"] = [];
  for (const [i, from] of since.entries()) {
    const next = since[i + 1];
    const span = placed.opsets.filter((o) => o >= from && (next === undefined || o < next));
    if (!span.some((o) => r.webgpu.includes(o)) || span.some((o) => r.cpu.includes(o))) continue;
    out.push(next === undefined ? { from } : { from, to: next - 1 });
  }
  return out;
}

function profileFrom(file: string, name: string, backend: string, webnn: boolean): Profile {
  const table: Record<string, OpRow> = {};
  const used = new Set<string>();
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
      const key = domain ? `${domain}.${op}` : op;
      const hand = NOTES[name]![key];
      if (hand) {
        if (hand.note !== digest(comment))
          throw new Error(
            `${name} ${key}: the comment is new or changed (digest ${digest(comment)}): read it`,
          );
        used.add(key);
        if (hand.constraints) row.constraints = hand.constraints;
        if (hand.caveat) row.caveat = hand.caveat;
      } else if (comment) {
        const { constraints, rest } = read(domain, op, comment);
        if (rest)
          throw new Error(
            `${name} ${key}: '${comment}' is not of a form read here: read it into NOTES`,
          );
        row.constraints = constraints;
      }
      table[key] = row;
    }
  }
  for (const key of Object.keys(NOTES[name]!))
    if (!used.has(key)) throw new Error(`${name} ${key}: read in NOTES, not in the table`);
  let ops = table;
  if (!webnn) {
    // The C++ provider's ops (webgpu-ops.json), typed by webgpu-kernels.json; the table's
    // constraints kept for the ops both have.
    ops = {};
    for (const [key, r] of Object.entries(placed.ops)) {
      // Constant is data (an initializer), placed nowhere from opset 9 on; every profile takes it
      if (key === "Constant") continue;
      const op = r.domain ? key.slice(r.domain.length + 1) : key;
      const versions = probedVersions(r, op);
      if (!versions.length) continue;
      const t = table[key];
      const row: OpRow = { domain: r.domain, versions, constraints: [...(t?.constraints ?? [])] };
      if (t?.caveat) row.caveat = t.caveat;
      const typed = r.domain === "" ? webgpuTypes(op) : undefined;
      if (typed) {
        row.types = typed.types;
        const data = inputNames("", op)[0];
        if (typed.data && data)
          row.constraints.push({ kind: "input-types", input: 0, name: data, types: typed.data });
      }
      ops[key] = row;
      if (!t) vsTable.added.push(key);
    }
    vsTable.removed = Object.keys(table).filter((k) => !ops[k]);
  }
  const ai = Object.values(ops).filter((r) => r.domain === "");
  return {
    name,
    version: 2,
    backend,
    backendVersion: version,
    source: webnn
      ? {
          url: `https://github.com/microsoft/onnxruntime/blob/v${version}/js/web/docs/${file}`,
          commit: `v${version} (the npm package onnxruntime-web@${version}, docs/${file})`,
          date: new Date().toISOString().slice(0, 10),
        }
      : {
          url: `https://www.npmjs.com/package/onnxruntime-web/v/${version}`,
          commit: `onnxruntime-web@${version} (dist/ort.webgpu.min.mjs), its C++ WebGPU provider probed on SwiftShader: ops and versions by scripts/targets/webgpu-ops.ts (test/data/targets/webgpu-ops.json), element types by scripts/targets/webgpu-kernels.ts (webgpu-kernels.json)`,
          date: new Date().toISOString().slice(0, 10),
        },
    // webnn: the newest op version the table names (the backend takes models up to that opset at
    // least); webgpu: the ai.onnx opsets probed, those the release loads
    opset: webnn
      ? { min: 7, max: Math.max(...ai.flatMap((r) => r.versions.map((v) => v.to ?? v.from))) }
      : { min: placed.opsets[0]!, max: placed.opsets[placed.opsets.length - 1]! },
    ops,
  };
}

for (const [file, name, backend, webnn] of [
  ["webnn-operators.md", "webnn", "onnxruntime-web, WebNN execution provider", true],
  [
    "webgpu-operators.md",
    "webgpu",
    "onnxruntime-web, WebGPU execution provider (the C++ one, onnxruntime-web/webgpu)",
    false,
  ],
] as const) {
  const p = profileFrom(file, name, backend, webnn);
  // As the repository's formatter writes JSON, so that `npm test`'s format check holds.
  const out = join(targetsDir(), `${name}.json`);
  const config = (await resolveConfig(out)) ?? {};
  writeFileSync(out, await format(JSON.stringify(p), { ...config, filepath: out }));
  const rows = Object.values(p.ops);
  console.log(
    `${name}: ${rows.length} ops, ${rows.reduce((n, r) => n + r.constraints.length, 0)} constraints, ${rows.filter((r) => r.caveat).length} with a caveat${webnn ? "" : `; against JSEP's table: + ${vsTable.added.join(" ")}; - ${vsTable.removed.join(" ")}`}`,
  );
}
