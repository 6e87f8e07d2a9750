// Makes dist/cli/cli.cjs.cache (run by scripts/build-cli.mjs): compiles the CLI bundle as the
// launcher does, runs each command once on the shipped examples, then saves V8's code cache of
// everything that ran, so that a command finds its code compiled. A function no command here
// reaches is compiled on its first call, as without a cache.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { cacheFile, loadBundle } = await import(join(root, "dist", "cli", "launch.js"));
const bundle = join(root, "dist", "cli", "cli.cjs");
const ex = (f) => join(root, "examples", f);
const tmp = mkdtempSync(join(tmpdir(), "oe-cli-cache-"));

const jobs = [
  ["--help"],
  ["info", ex("reduce-logsum-l1-18.onnx")],
  ["check", ex("reduce-logsum-l1-18.onnx")],
  ["schema", "ReduceLogSum", "--diff", "13", "18"],
  ["print", ex("reduce-13.onnx")],
  ["convert", ex("reduce-13.onnx"), "--opset", "18", "-o", join(tmp, "c.onnx")],
  ["expand", ex("reduce-logsum-l1-18.onnx"), "-o", join(tmp, "e.onnx")],
  ["expand", ex("logcumsumexp-29.onnx"), "--opset", "26", "-o", join(tmp, "l.onnx")],
  ["diff", ex("logcumsumexp-29.onnx"), join(tmp, "l.onnx")],
  ["run", ex("logcumsumexp-29.onnx"), "x=json:[[-200,-100,100,0],[-1000,0,1,2]]"],
  ["run", join(tmp, "l.onnx"), "x=json:[[-200,-100,100,0],[-1000,0,1,2]]"],
];

const { cli, script } = loadBundle(bundle, false);
// The commands' output is not wanted here.
process.stdout.write = () => true;
for (const args of jobs) {
  await cli.startCli([process.execPath, "onnx-expand", ...args]);
  if (process.exitCode) {
    process.stderr.write(`cli-cache: 'onnx-expand ${args.join(" ")}' failed\n`);
    process.exit(1);
  }
}
writeFileSync(`${bundle}.cache`, cacheFile(readFileSync(bundle), script.createCachedData()));
rmSync(tmp, { recursive: true, force: true });
// The run may leave helper threads; the cache is written.
process.exit(0);
