// Data-file cases for the fuzz campaign (campaign.ts, `--generator collisions|swaps|tiny`): each
// builds, in a folder of its own, a model whose tensors live in external data files (initializers,
// an If branch's initializer, a sparse initializer, a local function's Constant), and a command
// that writes into that folder, then judges what the command left:
//
//   collisions  the output (-o, --external-data, <output>.data, run --output-dir's output_0.pb)
//               names one of the data files, directly, through a symbolic or hard link, or by a
//               path through a folder's '..'; with or without --force. No data file may change.
//   swaps       a data file replaced before the command by a symbolic link out of the folder, a
//               link to another data file, a FIFO, a folder, a hard link to a file outside, or a
//               location with a trailing '/' or 'a/../'. The secret outside must not reach any
//               output and nothing may hang.
//   tiny        hundreds to thousands of 1- to 16-byte external tensors copied into a new data
//               file: it must hold them packed (never more than their bytes and 4 KiB).
//
// In every family nothing but the named outputs may be written: every other file of the folder
// (and the file outside it) must keep its bytes.

import { spawnSync } from "node:child_process";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Random } from "../../src/interp/random.js";

export const DATA_FAMILIES = ["collisions", "swaps", "tiny"] as const;
export type DataFamily = (typeof DATA_FAMILIES)[number];

export interface DataCase {
  /** The model the command reads. */
  file: string;
  args: string[];
  /** What the case is, for the report. */
  mutation: string;
  /** What went wrong once the command ended with `code`, if anything. */
  judge: (code: number) => string | undefined;
}

/** A marker the file outside the folder is filled with: it must never reach an output. */
const SECRET = Buffer.from("SECRET-OUTSIDE-THE-MODEL-FOLDER!");

/** The model: y = x + a + b + (c in a branch), a, b, c float[n] in the named data files. */
function modelText(n: number, locs: { a: string; b: string; c: string }, fold: boolean): string {
  void locs;
  return `<ir_version: 8, opset_import: ["" : 13]>
g (float[${n}] x, bool cond) => (float[${n}] y) {
  t = Add (x, a)
  u = Add (t, b)
  k = Constant <value_float = 1.5> ()
  ${fold ? "kk = Mul (k, k)" : "kk = Identity (k)"}
  v = Add (u, kk)
  y = If (cond) <
    then_branch = th () => (float[${n}] r) { r = Add (v, c) },
    else_branch = el () => (float[${n}] r) { r = Sub (v, c) }
  >
}
`;
}

function floats(n: number, seed: number): Uint8Array {
  const f = new Float32Array(n);
  for (let i = 0; i < n; i++) f[i] = ((i * 7 + seed) % 13) / 4;
  return new Uint8Array(f.buffer);
}

/** Writes the model as binary with its three tensors external (via the project's own saver). */
async function writeModel(
  dir: string,
  n: number,
  locs: { a: string; b: string; c: string },
  fold: boolean,
): Promise<string> {
  const { parseModelText } = await import("../../src/text/parse.js");
  const { Tensor } = await import("../../src/ir/tensor.js");
  const { DataType } = await import("../../src/ir/types.js");
  const { saveModel } = await import("../../src/io/save.js");
  const m = parseModelText(modelText(n, locs, fold));
  const files = new Map<string, Uint8Array[]>();
  const ext = (name: string, loc: string, seed: number) => {
    const bytes = floats(n, seed);
    const parts = files.get(loc) ?? [];
    const offset = parts.reduce((s, p) => s + p.length, 0);
    parts.push(bytes);
    files.set(loc, parts);
    return new Tensor(
      DataType.FLOAT,
      [n],
      {
        kind: "external",
        entries: [
          ["location", loc],
          ["offset", String(offset)],
          ["length", String(bytes.length)],
        ],
      },
      name,
    );
  };
  m.graph.initializers.push(ext("a", locs.a, 1), ext("b", locs.b, 2));
  // c: an initializer of the main graph the branches read.
  m.graph.initializers.push(ext("c", locs.c, 3));
  for (const [loc, parts] of files) {
    const path = join(dir, loc);
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, Buffer.concat(parts));
  }
  const file = join(dir, "model.onnx");
  saveModel(m, file);
  return file;
}

/** Every file under `dir` (not following links) with a hash of its bytes; links by their target. */
function snapshot(dir: string, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const rel = prefix + name;
    const st = lstatSync(p);
    if (st.isDirectory()) for (const [k, v] of snapshot(p, `${rel}/`)) out.set(k, v);
    else if (st.isFile()) out.set(rel, createHash("sha1").update(readFileSync(p)).digest("hex"));
    else out.set(rel, st.isSymbolicLink() ? "link" : "special");
  }
  return out;
}

/** What changed in `dir` since `before`, leaving out the named outputs. */
function changedBesides(dir: string, before: Map<string, string>, outputs: string[]): string[] {
  const after = snapshot(dir);
  const changed: string[] = [];
  for (const [k, v] of before) if (!outputs.includes(k) && after.get(k) !== v) changed.push(k);
  for (const k of after.keys())
    if (!before.has(k) && !outputs.includes(k) && !/^\.oe\d+\./.test(k)) changed.push(`+${k}`);
  return changed;
}

function hasSecret(dir: string): string | undefined {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const st = lstatSync(p);
    if (st.isFile() && readFileSync(p).includes(SECRET)) return name;
  }
  return undefined;
}

const LOCATIONS = ["data.bin", "weights.bin", "out.onnx.data", "output_0.pb", "w.bin"];

/** A case of `family` in the empty folder `dir` (the file outside goes to `outside`). */
export async function dataFileCase(
  family: DataFamily,
  rng: Random,
  dir: string,
  outside: string,
): Promise<DataCase> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  mkdirSync(outside, { recursive: true });
  const secret = join(outside, "secret.bin");
  writeFileSync(secret, Buffer.concat(Array.from({ length: 64 }, () => SECRET)));
  if (family === "tiny") return tinyCase(rng, dir);
  const n = rng.pick([4, 16, 300, 1024]);
  const pick = () => rng.pick(LOCATIONS);
  const locs = { a: pick(), b: pick(), c: pick() };
  const fold = rng.chance(0.5);
  const file = await writeModel(dir, n, locs, fold);
  const dataFiles = [...new Set(Object.values(locs))];
  const force = rng.chance(0.5) ? ["--force"] : [];
  const cmd = rng.pick(["convert", "expand", "simplify", "check", "parse", "run"] as const);
  let args: string[];
  let outputs: string[];
  let mutation: string;
  let swapped: string | undefined;
  let insideLink = false;
  if (family === "collisions") {
    const victim = rng.pick(dataFiles);
    const how = rng.pick(["direct", "symlink", "hardlink", "dotdot", "external-data", "default"]);
    let out = victim;
    if (how === "symlink") symlinkSync(victim, join(dir, (out = "link.onnx")));
    if (how === "hardlink") linkSync(join(dir, victim), join(dir, (out = "hard.onnx")));
    if (how === "dotdot") {
      mkdirSync(join(dir, "sub"));
      out = `sub/../${victim}`;
    }
    if (how === "external-data" || how === "default") out = "out.onnx";
    const extra = how === "external-data" ? ["--external-data", victim] : [];
    if (how === "default" && victim !== "out.onnx.data") extra.push("--external-data", victim);
    if (rng.chance(0.5)) extra.push("--size-threshold", "0");
    const o = join(dir, out);
    mutation = `${cmd} collide ${how} ${victim}${force.length ? " --force" : ""}`;
    switch (cmd) {
      case "convert":
        args = ["convert", file, "--opset", String(rng.range(11, 21)), "-o", o, ...extra, ...force];
        break;
      case "expand":
      case "simplify":
        args = [cmd, file, "-o", o, ...extra, ...force];
        break;
      case "check":
        args = ["check", file, "--write-value-info", o, ...extra, ...force];
        break;
      case "parse": {
        const text = join(dir, "model.onnxtxt");
        const { loadModel } = await import("../../src/io/files.js");
        const { printModel } = await import("../../src/text/print.js");
        writeFileSync(text, printModel(loadModel(file)));
        args = ["parse", text, "-o", o, ...extra, ...force];
        break;
      }
      case "run":
        args = ["run", file, "x=json:" + JSON.stringify(new Array(n).fill(1)), "cond=json:true"];
        args.push("--output-dir", dir);
        break;
    }
    // Named outputs: whatever the command may write besides the data files.
    outputs = [
      `${out.replace(/^sub\/\.\.\//, "")}.data`,
      "link.onnx",
      "hard.onnx",
      "out.onnx",
      "out.onnx.data",
      "output_0.pb",
      "model.onnxtxt",
    ].filter((f) => !dataFiles.includes(f));
  } else {
    // swaps: one data file replaced by something else before the command runs.
    const victim = rng.pick(dataFiles);
    const how = rng.pick([
      "link-out",
      "link-in",
      "fifo",
      "folder",
      "hardlink-out",
      "slash",
      "dotdot",
    ]);
    swapped = victim;
    const vp = join(dir, victim);
    rmSync(vp, { force: true });
    switch (how) {
      case "link-out":
        symlinkSync(secret, vp);
        break;
      case "link-in": {
        const other = dataFiles.find((d) => d !== victim);
        writeFileSync(join(dir, "spare.bin"), floats(3 * n, 9));
        symlinkSync(other ?? "spare.bin", vp);
        break;
      }
      case "fifo":
        spawnSync("mkfifo", [vp]);
        break;
      case "folder":
        mkdirSync(vp);
        break;
      case "hardlink-out":
        insideLink = true; // a hard link in the folder is a file of the folder: it may be read
        try {
          linkSync(secret, vp);
        } catch {
          symlinkSync(secret, vp);
        }
        break;
      case "slash":
      case "dotdot": {
        // The model names the file with a trailing '/' or through a folder that is not there.
        writeFileSync(vp, floats(3 * n, 5));
        const loc = how === "slash" ? `${victim}/` : `nowhere/../${victim}`;
        const { loadModel } = await import("../../src/io/files.js");
        const { saveModel } = await import("../../src/io/save.js");
        const m = loadModel(file);
        for (const t of m.graph.initializers)
          if (t.data.kind === "external")
            t.data.entries = t.data.entries.map(([k, v]) =>
              k === "location" && v === victim ? [k, loc] : [k, v],
            );
        rmSync(file);
        saveModel(m, file);
        break;
      }
    }
    const o = join(dir, "out.onnx");
    mutation = `${cmd} swap ${how} ${victim}`;
    switch (cmd) {
      case "convert":
        args = ["convert", file, "--opset", "18", "-o", o, ...force];
        break;
      case "expand":
      case "simplify":
        args = [cmd, file, "-o", o, ...force];
        break;
      case "check":
      case "parse":
        args = ["check", file];
        break;
      case "run":
        args = ["run", file, "x=json:" + JSON.stringify(new Array(n).fill(1)), "cond=json:false"];
        break;
    }
    outputs = ["out.onnx", "out.onnx.data"];
  }
  const before = snapshot(dir);
  const outsideBefore = snapshot(outside);
  return {
    file,
    args,
    mutation,
    judge: (code) => {
      const changed = changedBesides(dir, before, outputs);
      if (changed.length)
        return `wrote outside the named output (exit ${code}): ${changed.join(", ")}`;
      if (changedBesides(outside, outsideBefore, []).length) return "wrote outside the folder";
      if (family === "collisions" && code === 0 && cmd !== "check" && cmd !== "run") {
        // A collision that was not refused: it must have been one nothing was written to.
        for (const d of dataFiles) if (statSync(join(dir, d)).size === 0) return `${d} emptied`;
      }
      const leak = hasSecret(dir);
      if (leak && !insideLink && !(swapped && leak === swapped))
        return `the file outside the folder reached '${leak}'`;
      return undefined;
    },
  };
}

/** Many tiny external tensors copied into a new data file: packed, never padded to 4 KiB each. */
async function tinyCase(rng: Random, dir: string): Promise<DataCase> {
  const { Tensor } = await import("../../src/ir/tensor.js");
  const { DataType } = await import("../../src/ir/types.js");
  const { parseModelText } = await import("../../src/text/parse.js");
  const { saveModel } = await import("../../src/io/save.js");
  const count = rng.chance(0.05) ? 20000 : rng.pick([50, 300, 1000, 3000]);
  const m = parseModelText(`<ir_version: 8, opset_import: ["" : 13]>
g (float[1] x) => (float[1] y) {
  y = Identity (x)
}
`);
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const len = rng.pick([1, 2, 4, 8, 16]);
    const bytes = new Uint8Array(len).map((_, j) => (i + j) & 0xff);
    parts.push(bytes);
    m.graph.initializers.push(
      new Tensor(
        DataType.UINT8,
        [len],
        {
          kind: "external",
          entries: [
            ["location", "tiny.bin"],
            ["offset", String(offset)],
            ["length", String(len)],
          ],
        },
        `t${i}`,
      ),
    );
    offset += len;
  }
  writeFileSync(join(dir, "tiny.bin"), Buffer.concat(parts));
  const file = join(dir, "model.onnx");
  saveModel(m, file);
  const out = join(dir, "new");
  mkdirSync(out);
  const threshold = rng.pick(["0", "1", "4"]);
  const cmd = rng.pick(["convert", "simplify", "expand"] as const);
  const args = [
    cmd,
    file,
    ...(cmd === "convert" ? ["--opset", "18"] : []),
    "-o",
    join(out, "m.onnx"),
    "--external-data",
    "m.bin",
    "--size-threshold",
    threshold,
  ];
  const before = snapshot(dir);
  return {
    file,
    args,
    mutation: `${cmd} tiny ${count} tensors, ${offset} bytes, threshold ${threshold}`,
    judge: (code) => {
      const changed = changedBesides(dir, before, ["new/m.onnx", "new/m.bin"]);
      if (changed.length) return `wrote outside the named output: ${changed.join(", ")}`;
      if (code !== 0) return undefined;
      let size = 0;
      try {
        size = statSync(join(out, "m.bin")).size;
      } catch {
        return undefined; // every tensor under the threshold: inline
      }
      if (size > offset + 4096) return `data file of ${size} bytes for ${offset} bytes of tensors`;
      return undefined;
    },
  };
}
