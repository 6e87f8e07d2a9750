#!/usr/bin/env node
// Regenerates schemas/<Op>.json from the operator facts in scripts/spec/operators.json
// plus the hand-written overlay in schemas/_overlay/<Op>.json.
//
// The spec file has no prose and no function bodies; everything written by hand (descriptions,
// `body` entries, whole versions the spec lacks such as LogCumSumExp-29) lives in the overlay, so
// running this script again never loses it. Overlay format (one file per operator):
//
//   { "name": "ReduceL1",
//     "versions": {
//       "18": { "description": "...", "body": { "kind": "builder", "builder": "reduce_l1" },
//               "attributes": { "keepdims": "text" }, "inputs": { "axes": "text" },
//               "outputs": { ... }, "type_constraints": { "T": "text" },
//               "changes": [{ "kind": "meaning", "fact": "name", "what": "text",
//                             "breaks": ["up", "down"], "what_down": "text" }] } } }
//
// `changes` records what a version means differently from the one before when its signature does
// not show it (GroupNormalization-21: scale and bias per channel); schema/facts.ts answers from
// it and the converter's plan treats the steps named in `breaks` as changes of meaning.
// A version key the spec does not have must hold a complete version (every field of
// OpVersionSchema in src/schema/types.ts); an overlay file whose operator the spec does not have
// adds a new operator. Usage: node scripts/gen-schemas.mjs [--spec PATH] [--out DIR] [--check]
// (--check writes nothing and exits 1 when a generated file differs from the one on disk).
//
// onnxruntime's operators come from schemas/_contrib/onnxruntime.json (dumped from onnxruntime's
// own schemas by scripts/gen-contrib-facts.py; each version records the release as `source`):
// the com.microsoft ops become schemas/com.microsoft.<Op>.json, and the ops onnxruntime registers
// in the ONNX domain at versions ONNX lacks (LayerNormalization-1, SimplifiedLayerNormalization-1)
// schemas/onnxruntime.<Op>.json, marked `"registered_by": "onnxruntime"` (the registry resolves
// them only where ONNX has no version of the op). Their overlays are _overlay/com.microsoft.<Op>.json
// and _overlay/onnxruntime.<Op>.json; besides the keys above, an overlay version may give
// `defaults` (attribute -> value) for attributes whose default onnxruntime documents and applies
// but its schema does not state, and `function: true` with a `body`.

import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const specPath = opt("--spec", join(root, "scripts/spec/operators.json"));
const outDir = opt("--out", join(root, "schemas"));
const overlayDir = join(root, "schemas/_overlay");
const checkOnly = args.includes("--check");
const contribPath = join(root, "schemas/_contrib/onnxruntime.json");

const VERSION_KEYS = [
  "since",
  "source",
  "description",
  "deprecated",
  "experimental",
  "function",
  "attributes",
  "inputs",
  "outputs",
  "min_inputs",
  "max_inputs",
  "min_outputs",
  "max_outputs",
  "type_constraints",
  "body",
  "changes",
];
const REQUIRED_KEYS = VERSION_KEYS.filter(
  (k) => !["source", "description", "deprecated", "experimental", "body", "changes"].includes(k),
);

function fail(msg) {
  process.stderr.write(`gen-schemas: ${msg}\n`);
  process.exit(2);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    fail(`${path}: ${e.message}`);
  }
}

/** Copies only the known keys, in a fixed order, so files diff well. */
function ordered(obj, keys) {
  const out = {};
  for (const k of keys) if (obj[k] !== undefined) out[k] = obj[k];
  return out;
}

function normaliseVersion(v) {
  return ordered(
    {
      ...v,
      attributes: v.attributes.map((a) =>
        ordered(a, ["name", "type", "required", "default", "description"]),
      ),
      inputs: v.inputs.map((f) =>
        ordered(f, ["name", "type", "option", "homogeneous", "min_arity", "description"]),
      ),
      outputs: v.outputs.map((f) =>
        ordered(f, ["name", "type", "option", "homogeneous", "min_arity", "description"]),
      ),
      type_constraints: v.type_constraints.map((t) =>
        ordered(t, ["name", "allowed", "description"]),
      ),
      changes: v.changes?.map(normaliseChange),
    },
    VERSION_KEYS,
  );
}

/** A change of meaning, its keys in a fixed order (OpVersionSchema's `changes` in src/schema/types.ts). */
function normaliseChange(c) {
  return ordered(c, ["kind", "fact", "what", "breaks", "what_down"]);
}

function describeList(where, list, patch, what) {
  for (const [name, text] of Object.entries(patch ?? {})) {
    const item = list.find((x) => x.name === name);
    if (!item)
      fail(`${where}: overlay describes ${what} '${name}', which this version does not have`);
    if (typeof text !== "string") fail(`${where}: ${what} '${name}': description must be a string`);
    item.description = text;
  }
}

function applyPatch(where, version, patch) {
  const known = [
    "description",
    "body",
    "changes",
    "attributes",
    "inputs",
    "outputs",
    "type_constraints",
    "defaults",
    "function",
  ];
  for (const k of Object.keys(patch))
    if (!known.includes(k)) fail(`${where}: unknown overlay key '${k}'`);
  if (patch.description !== undefined) version.description = patch.description;
  if (patch.body !== undefined) version.body = patch.body;
  if (patch.function !== undefined) version.function = patch.function;
  for (const [name, value] of Object.entries(patch.defaults ?? {})) {
    const a = version.attributes.find((x) => x.name === name);
    if (!a)
      fail(`${where}: overlay gives a default for '${name}', which this version does not have`);
    if (a.default !== undefined) fail(`${where}: '${name}' has a default in the facts already`);
    a.default = value;
  }
  if (patch.changes !== undefined) version.changes = patch.changes.map(normaliseChange);
  describeList(where, version.attributes, patch.attributes, "attribute");
  describeList(where, version.inputs, patch.inputs, "input");
  describeList(where, version.outputs, patch.outputs, "output");
  describeList(where, version.type_constraints, patch.type_constraints, "type constraint");
}

const spec = readJson(specPath).operators;
const overlays = new Map();
if (existsSync(overlayDir)) {
  for (const f of readdirSync(overlayDir).sort()) {
    if (!f.endsWith(".json")) continue;
    const ov = readJson(join(overlayDir, f));
    const prefix =
      ov.domain === "com.microsoft" ? "com.microsoft." : ov.registered_by ? "onnxruntime." : "";
    if (typeof ov.name !== "string" || f !== `${prefix}${ov.name}.json`)
      fail(`${f}: overlay 'name' (and 'domain' or 'registered_by') must match the file name`);
    overlays.set(`${prefix}${ov.name}`, ov);
  }
}

const names = [
  ...new Set([...Object.keys(spec), ...[...overlays.keys()].filter((k) => !k.includes("."))]),
].sort();
let written = 0;
let differing = 0;
if (!checkOnly) mkdirSync(outDir, { recursive: true });
for (const name of names) {
  const versions = (spec[name] ?? []).map((v) => structuredClone(v));
  const ov = overlays.get(name);
  for (const [key, patch] of Object.entries(ov?.versions ?? {})) {
    const since = Number(key);
    const where = `_overlay/${name}.json: version ${key}`;
    const existing = versions.find((v) => v.since === since);
    if (existing) applyPatch(where, existing, patch);
    else {
      for (const k of REQUIRED_KEYS)
        if (patch[k] === undefined) fail(`${where}: a version the spec lacks needs '${k}'`);
      if (patch.since !== since) fail(`${where}: 'since' must equal the key`);
      versions.push(structuredClone(patch));
    }
  }
  versions.sort((a, b) => a.since - b.since);
  emit(`${name}.json`, { domain: "", name, versions: versions.map(normaliseVersion) });
}

// onnxruntime's operators: facts from onnxruntime's schemas, overlays as above.
const contrib = existsSync(contribPath) ? readJson(contribPath) : { operators: [] };
for (const op of contrib.operators) {
  const prefix = op.domain === "com.microsoft" ? "com.microsoft." : "onnxruntime.";
  if (op.domain !== "com.microsoft" && op.domain !== "")
    fail(`${contribPath}: domain '${op.domain}'`);
  const versions = op.versions.map((v) => ({
    ...structuredClone(v),
    source: `onnxruntime ${contrib.onnxruntime}`,
    function: false,
  }));
  const ov = overlays.get(`${prefix}${op.name}`);
  for (const [key, patch] of Object.entries(ov?.versions ?? {})) {
    const where = `_overlay/${prefix}${op.name}.json: version ${key}`;
    const existing = versions.find((v) => v.since === Number(key));
    if (!existing) fail(`${where}: onnxruntime has no such version`);
    applyPatch(where, existing, patch);
  }
  emit(`${prefix}${op.name}.json`, {
    domain: op.domain,
    name: op.name,
    ...(op.domain === "" ? { registered_by: "onnxruntime" } : {}),
    versions: versions.map(normaliseVersion),
  });
}

function emit(fileName, file) {
  const text = `${JSON.stringify(file, null, 1)}\n`;
  const path = join(outDir, fileName);
  if (checkOnly) {
    if (!existsSync(path) || readFileSync(path, "utf8") !== text) {
      process.stderr.write(`gen-schemas: ${path} is out of date\n`);
      differing++;
    }
  } else {
    writeFileSync(path, text);
    written++;
  }
}
if (checkOnly) process.exit(differing ? 1 : 0);
process.stdout.write(`gen-schemas: wrote ${written} operator files to ${outDir}\n`);
