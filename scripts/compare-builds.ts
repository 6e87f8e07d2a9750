// Compares what two builds of the CLI write, as a check that a refactoring changed no behaviour:
// `convert` to each target must write the same bytes and say the same thing, and `expand` must
// write the same model up to the numbering of the names it introduces (the expectPass rule) and
// say the same thing. Models: Debian's libonnx-testdata, ONNX's backend tests in shared/, and the
// shipped examples.
//
// Two changes are expected of builds from the lowering branch on, and counted apart rather than as
// differences: a model the old build refused to convert that the new one converts (function ops
// the target lacks are lowered on the way; listed with --verbose), and the origin records expand
// writes (docs/semantics.md, "Origin records"): expand outputs are compared with them removed.
//
//   npx tsx scripts/compare-builds.ts --base /path/to/old/dist [--new dist] [--targets 11,17,21,26]
//                                     [--only SUBSTRING] [--skip-convert] [--skip-expand]
//
// Prints one line per difference and a summary (same / different) per job; exit 1 on a difference.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { walkNodes } from "../src/ir/visit.js";
import { loadModel } from "../src/io/files.js";
import { hasFunctionBody } from "../src/schema/body.js";
import { SchemaRegistry } from "../src/schema/registry.js";
import { withoutOrigins } from "../src/inline/origin.js";
import { printModel } from "../src/text/print.js";
import { canonicalNames } from "../test/helpers/pass.js";

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

function models(): { name: string; path: string }[] {
  const found: { name: string; path: string }[] = [];
  const walk = (dir: string, label: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p, `${label}${e.name}_`);
      else if (e.name === "model.onnx") found.push({ name: label.replace(/_$/, ""), path: p });
    }
  };
  if (existsSync("/usr/share/libonnx-testdata/data"))
    walk("/usr/share/libonnx-testdata/data", "libonnx_");
  const shared = resolve("../shared/onnx-node-tests");
  if (existsSync(shared)) walk(shared, "node_");
  for (const e of readdirSync("examples"))
    if (e.endsWith(".onnx"))
      found.push({ name: `ex_${basename(e, ".onnx")}`, path: resolve("examples", e) });
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
console.log(
  `${differences === 0 ? "no differences" : `${differences} differences`} (${all.length} models; work in ${work})`,
);
process.exit(differences === 0 ? 0 : 1);
