// Whole processes, as a user meets the tools, side by side in one run against ONNX 1.23.1's
// Python tools and onnxruntime-node (bench/onnx-python.ts finds or makes the Python):
//
//   convert  `onnx-expand convert --opset 13` of a ReduceSum chain (opset 12) against
//            onnx.version_converter.convert_version (load + convert + save);
//   expand   `onnx-expand expand` of a chain of ReduceLogSum-18 calls against
//            onnx.inliner.inline_selected_functions (load + inline schema functions + save);
//   startup  `--version` and `info` on a small model, beside a bare `node -e 0`;
//   run      `onnx-expand run` of ReduceSum over 1e7 floats read from a .pb file, outputs written
//            to a folder, against bench/ort-run.mjs doing the same with onnxruntime-node.
//
// Wall time is the median of --repeat runs (default 3), each job's runs interleaved with the
// other tool's so that a busy machine slows both alike; peak RSS from GNU time when it is there.
// Ratios are printed beside the targets (issue 19): convert <= 1/6 of convert_version's time,
// expand <= 1/2 of inline_selected_functions', time(100k)/time(10k) <= 12 and
// time(1M)/time(100k) <= 12, `--version` <= 0.12 s, `info` <= 0.2 s, `run` <= 1.0x ORT's.
//
//   npx tsx bench/whole.ts [--sizes 10k,100k,1M] [--repeat N] [--only convert,expand,startup,run]
//                          [--base path/to/other/dist/cli/bin.cjs] [--skip-onnx]
//
// Default sizes are 10k and 100k (the 1M models take minutes on ONNX's side: --skip-onnx times
// onnx-expand alone, for the 1M ratios). --base times a second build of onnx-expand (another
// checkout's dist/cli/bin.cjs, or bin.js for a build older than it) beside this one.
// Runs dist/cli/bin.cjs: build first (`npm run bench` does).

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType } from "../src/ir/types.js";
import { encodeTensorBytes } from "../src/io/encode.js";
import { logSumChain, reduceChain } from "./chains.js";
import { onnxPython } from "./onnx-python.js";
import { fmtMs, fmtRun, summary, time, verdict, type Run } from "./process.js";

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const parseSize = (s: string): number => {
  const m = /^(\d+(?:\.\d+)?)([kM]?)$/.exec(s.trim());
  if (!m) throw new Error(`--sizes: not a size: '${s}'`);
  return Math.round(Number(m[1]) * (m[2] === "k" ? 1e3 : m[2] === "M" ? 1e6 : 1));
};
const sizes = (opt("--sizes") ?? "10k,100k").split(",").map(parseSize);
const repeat = Number(opt("--repeat") ?? 3);
const only = opt("--only")?.split(",");
const wants = (job: string) => !only || only.includes(job);

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = join(root, "dist", "cli", "bin.cjs");
if (!existsSync(bin)) throw new Error("dist/cli/bin.cjs is missing: run `npm run build` first");
const base = opt("--base");
/** Runs each job `repeat` times, interleaved; the median time and the largest peak RSS of each. */
function sideBySide(jobs: Record<string, () => Run>): Record<string, Run> {
  const runs: Record<string, Run[]> = Object.fromEntries(Object.keys(jobs).map((k) => [k, []]));
  for (let i = 0; i < repeat; i++) for (const [k, f] of Object.entries(jobs)) runs[k]!.push(f());
  return Object.fromEntries(Object.entries(runs).map(([k, rs]) => [k, summary(rs)]));
}

const label = (n: number) =>
  n >= 1e6 && n % 1e6 === 0 ? `${n / 1e6}M` : n >= 1e3 && n % 1e3 === 0 ? `${n / 1e3}k` : `${n}`;

const dir = mkdtempSync(join(tmpdir(), "bench-whole-"));
const py =
  (wants("convert") || wants("expand")) && !argv.includes("--skip-onnx") ? onnxPython() : undefined;
const pyLabel = py ? `ONNX ${py.version}` : "ONNX (not run)";
console.log(
  `onnx-expand ${bin}${base ? ` (base: ${base})` : ""}; ${pyLabel}${py ? ` (${py.bin})` : ""}; ` +
    `median of ${repeat}, interleaved; node ${process.version}`,
);

const CONVERT_PY = `import sys, onnx
from onnx import version_converter
m = onnx.load(sys.argv[1])
onnx.save(version_converter.convert_version(m, int(sys.argv[3])), sys.argv[2])
`;
const INLINE_PY = `import sys, onnx, onnx.inliner
m = onnx.load(sys.argv[1])
onnx.save(onnx.inliner.inline_selected_functions(m, [], exclude=True, inline_schema_functions=True), sys.argv[2])
`;
writeFileSync(join(dir, "convert.py"), CONVERT_PY);
writeFileSync(join(dir, "inline.py"), INLINE_PY);

/** Times ours (and the base build's) against ONNX's script on one file per size. */
function versusPython(
  job: string,
  target: number,
  make: (n: number) => Uint8Array,
  ours: (binPath: string, file: string, out: string) => string[],
  script: string,
  scriptArgs: (file: string, out: string) => string[],
): void {
  const times: Record<number, number> = {};
  for (const n of sizes) {
    const file = join(dir, `${job}-${n}.onnx`);
    writeFileSync(file, make(n));
    const out = (who: string) => join(dir, `${job}-${n}.${who}.onnx`);
    const jobs: Record<string, () => Run> = {
      ours: () => time(process.execPath, ours(bin, file, out("ours"))),
    };
    if (base) jobs.base = () => time(process.execPath, ours(base, file, out("base")));
    if (py) jobs.onnx = () => time(py.bin, [join(dir, script), ...scriptArgs(file, out("onnx"))]);
    const r = sideBySide(jobs);
    times[n] = r.ours!.ms;
    let line = `${job} ${label(n)}: ours ${fmtRun(r.ours!)}`;
    if (r.base)
      line += `; base ${fmtRun(r.base)} (ours/base ${(r.ours!.ms / r.base.ms).toFixed(2)})`;
    if (r.onnx) {
      const ratio = r.ours!.ms / r.onnx.ms;
      line += `; ${pyLabel} ${fmtRun(r.onnx)}; ours/onnx ${ratio.toFixed(3)} ${verdict(ratio <= target)} (target <= ${target.toFixed(3)})`;
    }
    console.log(line);
    for (const who of ["ours", "base", "onnx"]) rmSync(out(who), { force: true });
    rmSync(file, { force: true });
  }
  for (let i = 1; i < sizes.length; i++) {
    const [a, b] = [sizes[i - 1]!, sizes[i]!];
    if (b !== a * 10) continue;
    const ratio = times[b]! / times[a]!;
    console.log(
      `${job}: time(${label(b)})/time(${label(a)}) = ${ratio.toFixed(2)} ${verdict(ratio <= 12)} (target <= 12)`,
    );
  }
}

if (wants("startup")) {
  const small = join(dir, "small.onnx");
  writeFileSync(small, encodeModel(reduceChain("reducesum", 3, 13)));
  const jobs: Record<string, () => Run> = {
    "node -e 0": () => time(process.execPath, ["-e", "0"]),
    "--version": () => time(process.execPath, [bin, "--version"]),
    info: () => time(process.execPath, [bin, "info", small]),
  };
  if (base) {
    jobs["base --version"] = () => time(process.execPath, [base, "--version"]);
    jobs["base info"] = () => time(process.execPath, [base, "info", small]);
  }
  const r = sideBySide({ ...jobs, ...jobs }); // twice the runs: short processes vary most
  const bare = r["node -e 0"]!.ms;
  for (const [k, v] of Object.entries(r)) {
    const target = k === "--version" ? 120 : k === "info" ? 200 : undefined;
    console.log(
      `startup ${k}: ${fmtRun(v)}` +
        (k === "node -e 0" ? "" : ` (${(v.ms / bare).toFixed(2)}x node -e 0)`) +
        (target ? ` ${verdict(v.ms <= target)} (target <= ${target} ms)` : ""),
    );
  }
}

if (wants("convert"))
  versusPython(
    "convert",
    1 / 6,
    (n) => encodeModel(reduceChain("reducesum", n, 12)),
    (b, file, out) => [b, "convert", file, "--opset", "13", "-o", out],
    "convert.py",
    (file, out) => [file, out, "13"],
  );

if (wants("expand"))
  versusPython(
    "expand",
    1 / 2,
    (n) => encodeModel(logSumChain(n)),
    (b, file, out) => [b, "expand", file, "-o", out],
    "inline.py",
    (file, out) => [file, out],
  );

if (wants("run")) {
  // ReduceSum over the rows of a 1000 x 10000 float32 tensor (1e7 values, 40 MB of raw_data).
  const rows = 1000;
  const cols = 10000;
  const m = model(
    graph({
      name: "reduce",
      nodes: [node("ReduceSum", ["x", "axes"], ["y"], { keepdims: 1 })],
      inputs: [valueInfo("x", "float", [rows, cols])],
      outputs: [valueInfo("y", "float", [rows, 1])],
      initializers: [Tensor.from(DataType.INT64, [1], [1n], "axes")],
    }),
    18,
  );
  const modelFile = join(dir, "reduce.onnx");
  writeFileSync(modelFile, encodeModel(m));
  const x = new Float32Array(rows * cols);
  let s = 1;
  for (let i = 0; i < x.length; i++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    x[i] = s / 2 ** 31 - 0.5;
  }
  const input = join(dir, "x.pb");
  writeFileSync(
    input,
    encodeTensorBytes(
      new Tensor(
        DataType.FLOAT,
        [rows, cols],
        { kind: "raw", bytes: new Uint8Array(x.buffer) },
        "x",
      ),
    ),
  );
  const outDir = (who: string) => {
    const d = join(dir, `out-${who}`);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const ort = join(root, "bench", "ort-run.mjs");
  const jobs: Record<string, () => Run> = {
    ours: () =>
      time(process.execPath, [bin, "run", modelFile, input, "--output-dir", outDir("ours")]),
    ort: () => time(process.execPath, [ort, modelFile, input, outDir("ort")]),
  };
  if (base)
    jobs.base = () =>
      time(process.execPath, [base, "run", modelFile, input, "--output-dir", outDir("base")]);
  const r = sideBySide(jobs);
  const ratio = r.ours!.ms / r.ort!.ms;
  console.log(
    `run ReduceSum 1e7 floats from .pb: ours ${fmtRun(r.ours!)}; onnxruntime-node script ${fmtRun(r.ort!)}; ` +
      `ours/ORT ${ratio.toFixed(2)} ${verdict(ratio <= 1)} (target <= 1.0)` +
      (r.base ? `; base ${fmtRun(r.base)} (base/ORT ${(r.base.ms / r.ort!.ms).toFixed(2)})` : ""),
  );
}

rmSync(dir, { recursive: true, force: true });
