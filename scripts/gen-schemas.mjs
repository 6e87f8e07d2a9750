#!/usr/bin/env node
// Regenerates schemas/<Op>.json from the operator facts in ../shared/onnx-spec/operators.json
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

import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const specPath = opt("--spec", join(root, "../shared/onnx-spec/operators.json"));
const outDir = opt("--out", join(root, "schemas"));
const overlayDir = join(root, "schemas/_overlay");
const checkOnly = args.includes("--check");

const VERSION_KEYS = [
  "since",
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
  (k) => !["description", "deprecated", "experimental", "body", "changes"].includes(k),
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
  ];
  for (const k of Object.keys(patch))
    if (!known.includes(k)) fail(`${where}: unknown overlay key '${k}'`);
  if (patch.description !== undefined) version.description = patch.description;
  if (patch.body !== undefined) version.body = patch.body;
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
    if (typeof ov.name !== "string" || f !== `${ov.name}.json`)
      fail(`${f}: overlay 'name' must match the file name`);
    overlays.set(ov.name, ov);
  }
}

const names = [...new Set([...Object.keys(spec), ...overlays.keys()])].sort();
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
  const file = { domain: "", name, versions: versions.map(normaliseVersion) };
  const text = `${JSON.stringify(file, null, 1)}\n`;
  const path = join(outDir, `${name}.json`);
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
