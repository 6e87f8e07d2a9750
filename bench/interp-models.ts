// The interpreter on real models, as a user meets it: whole-process time of `onnx-expand run
// MODEL input_0.pb --output-dir D` against an onnxruntime-node script loading the same files
// (bench/interp-ort.mjs), and onnxruntime-web's WebAssembly backend in Node as an anchor, side by
// side, median of 3, and the largest difference of the outputs from onnxruntime-node's; the load
// average before and after (the ratios are only comparable within one run on a shared machine).
//
// The models are made at bench time, never committed: exported with torch when a Python with
// torch, torchvision and onnx is at hand (INTERP_PYTHON, default python3; bench/interp-export.py),
// else generated with the IR builder with the same layer shapes (bench/interp-nets.ts). They are
// kept in INTERP_MODELS (default: a folder under the system's temporary folder). The deployed
// forms isnet_fp16 and isnet_quint8 (IS-Net at 1024×1024, float16 and dynamically quantized, as
// npm's @imgly/background-removal-data ships them) are fetched by bench/isnet.ts.
//
// `deployed` (or `deployed/NAME`) adds the committed deployed-model corpus (test/data/deployed:
// quantized, float16, fused and MatMulNBits models, small by design), each with its first test
// data set's inputs.
//
//   npx tsx bench/interp-models.ts [resnet18] [convnext_tiny] [ocr_det] [swin_t] [bert]
//     [isnet_fp16] [isnet_quint8] [deployed | deployed/NAME ...]
//     (dist/ must be built; INTERP_WEB=0 leaves out the web anchor)

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { toFloat64 } from "../src/interp/tensor.js";
import { decodeTensorProto } from "../src/interp/value-proto.js";
import { generateNet } from "./interp-nets.js";
import { ISNET_MODELS, ensureIsnet } from "./isnet.js";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const dir = process.env.INTERP_MODELS ?? join(tmpdir(), "onnx-expand-interp-models");
const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
/** The committed deployed-model corpus (`npm run corpus:deployed`): `deployed/NAME`, or all. */
const DEPLOYED = here("../test/data/deployed");
const deployedNames = () =>
  readdirSync(DEPLOYED)
    .filter((d) => existsSync(join(DEPLOYED, d, "model.onnx")))
    .sort()
    .map((d) => `deployed/${d}`);
const models = (
  names.length
    ? names
    : ["resnet18", "convnext_tiny", "ocr_det", "swin_t", "bert", ...Object.keys(ISNET_MODELS)]
).flatMap((m) => (m === "deployed" ? deployedNames() : [m]));
const isDeployed = (m: string) => m.startsWith("deployed/");
const RUNS = Number(process.env.INTERP_RUNS ?? 3);
/** onnxruntime-web's WebAssembly backend as an anchor (INTERP_WEB=0 leaves it out). */
const WEB = process.env.INTERP_WEB !== "0";

function ensureModels(): void {
  mkdirSync(dir, { recursive: true });
  for (const m of models.filter((m) => isDeployed(m) && !existsSync(join(DEPLOYED, m.slice(9)))))
    throw new Error(`${m}: not in test/data/deployed`);
  for (const m of models.filter((m) => m in ISNET_MODELS))
    try {
      ensureIsnet(dir, m);
    } catch (e) {
      console.log(`(${m}: ${(e as Error).message.split("\n")[0]}; left out)`);
      models.splice(models.indexOf(m), 1);
    }
  const missing = models.filter((m) => !isDeployed(m) && !existsSync(join(dir, `${m}.onnx`)));
  if (!missing.length) return;
  const py = process.env.INTERP_PYTHON ?? "python3";
  const r = spawnSync(py, [here("interp-export.py"), dir, ...missing], { stdio: "pipe" });
  if (r.status === 0) return;
  console.log(`(no torch export: ${py} exited ${r.status}; generating nets of the same shapes)`);
  for (const m of missing)
    try {
      generateNet(m, dir);
    } catch {
      console.log(`(${m}: no generated net of its shapes; left out)`);
      models.splice(models.indexOf(m), 1);
    }
}

function time(cmd: string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, cmd, { stdio: ["ignore", "ignore", "pipe"] });
  const ms = performance.now() - t;
  if (r.status !== 0)
    throw new Error(`${cmd.join(" ")} failed: ${r.stderr.toString().slice(0, 400)}`);
  return ms;
}

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

ensureModels();
const cli = here("../dist/cli/bin.cjs");
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");
console.log(`load average at the start: ${load()} (${availableParallelism()} cores)`);
/** The model column's width. */
const W = Math.max(14, ...models.map((m) => m.length));
console.log(
  "model".padEnd(W) +
    " ours (s)  onnxruntime-node (s)  ratio  onnxruntime-web (s)  ratio  max |diff|",
);
for (const m of models) {
  // A deployed model: its folder's model.onnx and first test data set; the others: DIR/m.onnx
  // and DIR/m/input_*.pb.
  const data = isDeployed(m) ? join(DEPLOYED, m.slice(9), "test_data_set_0") : join(dir, m);
  const model = isDeployed(m) ? join(DEPLOYED, m.slice(9), "model.onnx") : join(dir, `${m}.onnx`);
  const inputs = readdirSync(data)
    .filter((f) => /^input_\d+\.pb$/.test(f))
    .sort((a, b) => parseInt(a.slice(6)) - parseInt(b.slice(6)))
    .map((f) => join(data, f));
  const out = join(dir, m);
  const [oursDir, ortDir, webDir] = ["ours", "ort", "ort-web"].map((d) => join(out, d));
  for (const d of [oursDir, ortDir, webDir]) mkdirSync(d, { recursive: true });
  const ours: number[] = [];
  const ort: number[] = [];
  const web: number[] = [];
  try {
    // Side by side: each round runs the three once, so that load changes hit all alike.
    for (let i = 0; i < RUNS; i++) {
      ort.push(time([here("interp-ort.mjs"), model, ortDir, ...inputs]));
      if (WEB) web.push(time([here("interp-ort.mjs"), "--web", model, webDir, ...inputs]));
      ours.push(time([cli, "run", model, ...inputs, "--output-dir", oursDir]));
    }
  } catch (e) {
    const msg = (e as Error).message;
    // A contrib op onnxruntime has no CPU kernel for (BiasAdd): nothing to compare with.
    const none = /Could not find an implementation for (\w+)/.exec(msg);
    if (none) console.log(`${m.padEnd(W)} (onnxruntime-node has no CPU kernel for ${none[1]})`);
    else {
      console.log(`${m.padEnd(W)} ${msg.split("\n")[0]}`);
      process.exitCode = 1;
    }
    continue;
  }
  // The first output as numbers, ours decoded, onnxruntime's raw bytes read as our type.
  const t = decodeTensorProto(readFileSync(join(oursDir, "output_0.pb"))).tensor;
  const a = toFloat64(t);
  const raw = readFileSync(join(ortDir, "output_0.raw"));
  const bytes = new Uint8Array(raw.byteLength);
  bytes.set(raw);
  const b = toFloat64({
    ...t,
    data: new (t.data.constructor as Uint8ArrayConstructor)(bytes.buffer),
  });
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff = Math.max(diff, Math.abs(a[i]! - b[i]!));
  if (a.length !== b.length) diff = NaN;
  const [o, r] = [med(ours) / 1000, med(ort) / 1000];
  const w = WEB ? med(web) / 1000 : NaN;
  console.log(
    `${m.padEnd(W)} ${o.toFixed(2).padStart(8)}  ${r.toFixed(2).padStart(20)}  ${(o / r).toFixed(1).padStart(5)}  ${w.toFixed(2).padStart(19)}  ${(o / w).toFixed(1).padStart(5)}  ${diff.toExponential(1).padStart(10)}`,
  );
}
console.log(`load average at the end: ${load()}`);
writeFileSync(join(dir, "last-run.txt"), new Date().toISOString());
