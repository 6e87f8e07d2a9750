// Hostile-input families for the fuzz campaign (`--generator tensors|profiles|names|calls|contrib`):
// each case is a model (and, for profiles, a file in the profile's place) with the command line
// to run it, chosen by the family:
// - tensors: initializers whose data does not fit their type and shape (raw data longer or shorter,
//   typed fields of the wrong length or kind, element type 0 or unknown, packed types) and bool
//   raw bytes other than 0 and 1; check, run, simplify, lower and expand.
// - profiles: a profile or an op list that is a FIFO, a folder, /dev/zero, too large, not JSON,
//   a shipped profile with a field mangled or an empty opset range; check/lower --target and
//   expand --target-ops.
// - names: ops, domains, inputs, outputs, functions, attributes and dims named after members of
//   Object.prototype (constructor, __proto__, toString, hasOwnProperty, ...).
// - calls: call-count bombs (bombs.ts) run by `run --random`, which counts calls before it starts.
// - contrib: onnxruntime's contrib ops with random attributes and shapes (contrib-cases.ts).

import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Random } from "../../src/interp/random.js";
import { encodeModel } from "../../src/io/files.js";
import { Tensor, type TensorData } from "../../src/ir/tensor.js";
import { DataType } from "../../src/ir/types.js";
import { parseModelText } from "../../src/text/parse.js";
import { bombSize, bombText, randomBomb } from "./bombs.js";
import { contribCase } from "./contrib-cases.js";

export const HOSTILE_FAMILIES = ["tensors", "profiles", "names", "calls", "contrib"] as const;
export type HostileFamily = (typeof HOSTILE_FAMILIES)[number];

export interface HostileCase {
  /** What the case is (for the findings' lines). */
  kind: string;
  /** The model file written. */
  file: string;
  /** The command line (without the program name). */
  args: string[];
}

/** Every element type id and a few that are none. */
const TYPE_IDS = [0, ...Array.from({ length: 26 }, (_, i) => i + 1), 27, 99, -1];

function tensorCase(rng: Random, dir: string): HostileCase {
  const dataType = rng.pick(TYPE_IDS);
  const dims = Array.from({ length: rng.int(3) }, () => rng.pick([0, 1, 2, 3, 5, 7]));
  if (rng.chance(0.05)) dims.push(rng.pick([-1, 2 ** 53, 1e9]));
  const n = dims.reduce((a, b) => a * b, 1);
  const len = Math.max(
    0,
    Math.min(4096, Math.round(n * rng.pick([0, 0.25, 0.5, 1, 2, 4, 8]) + rng.range(-2, 2))),
  );
  const kind = rng.pick([
    "raw",
    "raw",
    "float",
    "int32",
    "int64",
    "double",
    "uint64",
    "string",
    "none",
  ] as const);
  let data: TensorData;
  if (kind === "raw") {
    const bytes = new Uint8Array(len);
    for (let i = 0; i < len; i++) bytes[i] = rng.pick([0, 1, 2, 127, 128, 255, rng.int(256)]);
    data = { kind: "raw", bytes };
  } else if (kind === "float")
    data = { kind, values: Float32Array.from({ length: len }, () => rng.next()) };
  else if (kind === "int32")
    data = { kind, values: Int32Array.from({ length: len }, () => rng.range(-3, 300)) };
  else if (kind === "int64")
    data = { kind, values: BigInt64Array.from({ length: len }, () => BigInt(rng.range(-3, 3))) };
  else if (kind === "double")
    data = { kind, values: Float64Array.from({ length: len }, () => rng.next()) };
  else if (kind === "uint64")
    data = { kind, values: BigUint64Array.from({ length: len }, () => BigInt(rng.int(9))) };
  else if (kind === "string")
    data = { kind, values: Array.from({ length: len % 64 }, () => new TextEncoder().encode("s")) };
  else data = { kind: "none" };
  // The tensor feeds a node that reads it as its type says: a Cast to float (bools and numbers),
  // an Identity otherwise; it is an output too.
  const m = parseModelText(`<ir_version: 9, opset_import: ["" : 19]>
g (float[2] x) => (float[2] y, float[?] c) {
  y = Relu (x)
  c = Cast <to = 1> (W)
}`);
  m.graph.initializers.push(new Tensor(dataType, dims, data, "W"));
  const file = join(dir, "case.onnx");
  writeFileSync(file, encodeModel(m));
  const command = rng.pick(["check", "run", "simplify", "lower", "expand"]);
  const args =
    command === "check"
      ? ["check", file]
      : command === "run"
        ? ["run", file, "x=json:[1,-2]", "--max-memory", "256M"]
        : command === "lower"
          ? [
              "lower",
              file,
              "--target",
              rng.pick(["webnn", "coreml", "ai.onnx-19"]),
              "-o",
              join(dir, "out.onnx"),
              "--force",
            ]
          : [command, file, "-o", join(dir, "out.onnx"), "--force"];
  return { kind: `tensor type ${dataType} [${dims.join(",")}] ${kind} x${len}`, file, args };
}

const PLAIN = `<ir_version: 8, opset_import: ["" : 13]>
g (float[2] x) => (float[2] y) {
  y = Relu (x)
}`;

/** A shipped profile with one field changed at random. */
function mangledProfile(rng: Random): string {
  const text = readFileSync(
    join("targets", rng.pick(["webnn", "coreml", "nnapi", "webgpu"]) + ".json"),
    "utf8",
  );
  const p = JSON.parse(text) as Record<string, unknown> & {
    opset: { min: number; max: number };
    ops: Record<string, unknown>;
  };
  const what = rng.int(9);
  const odd = rng.pick<unknown>([null, -1, 0, 2 ** 31, 1e308, "x", [], {}, true, "__proto__"]);
  if (what === 0) p.opset = { min: rng.range(1, 30), max: rng.range(1, 30) };
  else if (what === 1) p.opset = { min: odd as number, max: 7 };
  else if (what === 2)
    p.ops = {
      ["__proto__"]: p.ops[Object.keys(p.ops)[0]!],
      constructor: { domain: "", versions: [{ from: 1 }] },
    };
  else if (what === 3) {
    const k = rng.pick(Object.keys(p.ops));
    p.ops[k] = odd;
  } else if (what === 4) p.name = odd as string;
  else if (what === 5) delete (p as Record<string, unknown>)[rng.pick(Object.keys(p))];
  else if (what === 6) {
    const k = rng.pick(Object.keys(p.ops));
    (p.ops[k] as Record<string, unknown>).versions = [{ from: odd, to: rng.range(-2, 30) }];
  } else if (what === 7) {
    const k = rng.pick(Object.keys(p.ops));
    (p.ops[k] as Record<string, unknown>).constraints = [
      {
        kind: rng.pick(["rank", "attribute", "constant-input", "static-dims", "x"]),
        input: odd,
        min: odd,
        max: odd,
        name: odd,
        in: odd,
      },
    ];
  } else (p as Record<string, unknown>).extra = odd;
  const out = JSON.stringify(p);
  return rng.chance(0.1) ? out.slice(0, rng.int(out.length)) : out;
}

function profileCase(rng: Random, dir: string): HostileCase {
  const file = join(dir, "case.onnxtxt");
  writeFileSync(file, PLAIN);
  const prof = join(dir, rng.pick(["p.json", "p/x.json", "ops.txt"]));
  rmSync(join(dir, "p.json"), { recursive: true, force: true });
  rmSync(join(dir, "p"), { recursive: true, force: true });
  rmSync(join(dir, "ops.txt"), { recursive: true, force: true });
  mkdirSync(join(dir, "p"), { recursive: true });
  const form = rng.pick([
    "fifo",
    "folder",
    "zero",
    "huge",
    "not-json",
    "mangled",
    "mangled",
    "mangled",
    "ops",
    "missing",
  ] as const);
  if (form === "fifo") execFileSync("mkfifo", [prof]);
  else if (form === "folder") mkdirSync(prof);
  else if (form === "zero") symlinkSync("/dev/zero", prof);
  else if (form === "huge") writeFileSync(prof, Buffer.alloc((16 << 20) + 1 + rng.int(1000), 0x20));
  else if (form === "not-json")
    writeFileSync(prof, rng.pick(["", "{", "[]", "null", "\u0000\u0001", '{"name":1}']));
  else if (form === "mangled") writeFileSync(prof, mangledProfile(rng));
  else if (form === "ops")
    writeFileSync(
      prof,
      rng.pick([
        "Relu\n",
        "constructor\n__proto__.toString\n",
        "com.microsoft:Attention:1\n",
        "::::\n",
        "Relu:x\n",
      ]),
    );
  const out = join(dir, "out.onnx");
  const command = rng.pick(["check", "lower", "expand"]);
  const args =
    command === "check"
      ? ["check", file, "--target", prof]
      : command === "lower"
        ? ["lower", file, "--target", prof, "-o", out, "--force"]
        : ["expand", file, "--target-ops", prof, "-o", out, "--force"];
  return { kind: `profile ${form} (${command})`, file, args };
}

const MEMBERS = [
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "isPrototypeOf",
  "__defineGetter__",
  "toLocaleString",
  "propertyIsEnumerable",
];

function namesCase(rng: Random, dir: string): HostileCase {
  const name = () => rng.pick(MEMBERS);
  const [i1, i2, o1, mid] = [name(), name(), name(), name()];
  // Distinct value names, each a member name (made distinct by a suffix where they clash).
  const seen = new Set<string>();
  const distinct = (s: string) => {
    let t = s;
    for (let k = 1; seen.has(t); k++) t = `${s}${k}`;
    seen.add(t);
    return t;
  };
  const a = distinct(i1);
  const b = distinct(i2);
  const y = distinct(o1);
  const v = distinct(mid);
  const dom = rng.chance(0.5) ? name() : "local";
  const fn = name();
  const attr = name();
  const dim = name();
  const op = rng.pick([`${dom}.${fn}`, name(), "Relu", `${name()}.${name()}`]);
  const text = `<ir_version: 8, opset_import: ["" : 13, "${dom}" : 1${rng.chance(0.3) ? `, "${name()}" : 1` : ""}]>
g (float[${dim}] ${a}, float[${dim}] ${b}) => (float[${dim}] ${y}) {
  ${v} = ${op} <${attr} = 2.0> (${a})
  ${y} = Add (${v}, ${b})
}
<domain: "${dom}", opset_import: ["" : 13]>
${fn} <${attr}> (x) => (z) {
  k = Constant <value_float: float = @${attr}> ()
  z = Mul (x, k)
}`;
  const file = join(dir, "case.onnxtxt");
  writeFileSync(file, text);
  const out = join(dir, "out.onnx");
  const command = rng.pick([
    "check-target",
    "lower",
    "run",
    "run-random",
    "simplify",
    "expand",
    "convert",
  ]);
  const args =
    command === "check-target"
      ? ["check", file, "--target", rng.pick(["webnn", "coreml", "webgpu"])]
      : command === "lower"
        ? ["lower", file, "--target", rng.pick(["webnn", "coreml", "nnapi"]), "-o", out, "--force"]
        : command === "run"
          ? [
              "run",
              file,
              `${a}=json:[1,2]`,
              `${b}=json:[3,-4]`,
              ...(rng.chance(0.3) ? [`${name()}=json:[1]`] : []),
            ]
          : command === "run-random"
            ? ["run", file, "--random", "--dim", `${rng.chance(0.5) ? dim : name()}=2`]
            : command === "simplify"
              ? ["simplify", file, "-o", out, "--force", "--dim", `${dim}=2`]
              : command === "convert"
                ? ["convert", file, "--opset", String(rng.range(7, 21)), "-o", out, "--force"]
                : ["expand", file, "-o", out, "--force"];
  return { kind: `names ${op} ${a},${b}->${y} (${command})`, file, args };
}

function callsCase(rng: Random, dir: string): HostileCase {
  const shape = randomBomb(rng);
  const file = join(dir, "case.onnxtxt");
  writeFileSync(file, bombText(shape));
  // A run under the default bound (10,000,000 nodes) may take a minute of CPU at ~10 us a call:
  // bombs between 500,000 nodes and the bound run under a lower --max-nodes, so that every case
  // ends within the campaign's time cap; those over the bound meet the default refusal.
  const size = bombSize(shape);
  const extra =
    rng.chance(0.3) || (size > 500_000 && size <= 10_000_000)
      ? ["--max-nodes", String(1 + rng.int(500_000))]
      : [];
  return {
    kind: `calls ${JSON.stringify(shape)} ${extra.join(" ")}`,
    file,
    args: ["run", file, "--random", "--max-memory", "256M", ...extra],
  };
}

export function hostileCase(family: HostileFamily, rng: Random, dir: string): HostileCase {
  switch (family) {
    case "tensors":
      return tensorCase(rng, dir);
    case "profiles":
      return profileCase(rng, dir);
    case "names":
      return namesCase(rng, dir);
    case "calls":
      return callsCase(rng, dir);
    case "contrib":
      return contribCase(rng, dir);
  }
}
