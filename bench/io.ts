// Model I/O. (1) A model with 200 MB of raw tensor data: throughput and peak memory; targets
// (issue 2): load >= 1 GB/s, peak RSS <= 1.5x the file size. (2) Node-heavy models, the 100k-node
// ReduceSum chain (6.7 MB) and the 200k nodes that expanding 100k ReduceLogSum calls gives: load
// and save in MB/s, each the first call in a fresh process as the CLI's is (the compiled library,
// dist/), and the ONNX text printer and parser on the chain; targets (issue 19): load and save
// >= 60 MB/s (the chain in <= 0.11 s each way), text >= 20 MB/s. Each measurement runs in a
// fresh child process so that its peak RSS is its own; medians of 3 (wall time; CPU time beside
// it, steadier on a shared machine).
//
//   npx tsx bench/io.ts [--nodes-only [--base path/to/other/checkout]]
//
// --nodes-only runs part (2) alone; --base measures another checkout's dist/ beside this one's,
// the runs interleaved (build both first).

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { decodeModel, loadModel, saveModel } from "../src/io/files.js";
import { graph, model, node, valueInfo } from "../src/ir/builder.js";
import { Tensor } from "../src/ir/tensor.js";
import { DataType, type Node } from "../src/ir/types.js";

const MB = 1 << 20;
const [, , mode, file, out] = process.argv;

/** Peak resident memory of this process image (VmHWM: unlike getrusage's maxrss, not inherited from the parent across exec). */
function peakRss(): number {
  const m = readFileSync("/proc/self/status", "utf8").match(/VmHWM:\s+(\d+) kB/);
  return m ? Number(m[1]) * 1024 : process.resourceUsage().maxRSS * 1024;
}

if (mode === "load") {
  const t0 = performance.now();
  const bytes = readFileSync(file!);
  const t1 = performance.now();
  const m = decodeModel(bytes);
  const t2 = performance.now();
  console.log(
    JSON.stringify({
      read: t1 - t0,
      decode: t2 - t1,
      total: t2 - t0,
      rss: peakRss(),
      tensors: m.graph.initializers.length,
    }),
  );
} else if (mode === "roundtrip") {
  const t0 = performance.now();
  const m = loadModel(file!);
  const t1 = performance.now();
  saveModel(m, out!);
  const t2 = performance.now();
  console.log(JSON.stringify({ load: t1 - t0, save: t2 - t1, total: t2 - t0, rss: peakRss() }));
} else if (mode === "floor") {
  console.log(JSON.stringify(irFloor(Number(file))));
} else if (mode === "nodes" || mode === "text") {
  await nodeHeavyChild(mode, file!, out!);
} else if (mode === "baseline") {
  console.log(JSON.stringify({ rss: peakRss() }));
} else if (process.argv.includes("--nodes-only")) {
  const dir = mkdtempSync(join(tmpdir(), "onnx-expand-bench-"));
  const b = process.argv.indexOf("--base");
  const baseDist =
    b >= 0 ? pathToFileURL(join(process.argv[b + 1]!, "dist")).href + "/" : undefined;
  await nodeHeavy(dir, childProcess, baseDist);
  rmSync(dir, { recursive: true, force: true });
} else {
  const child = childProcess;
  const dir = mkdtempSync(join(tmpdir(), "onnx-expand-bench-"));
  const path = join(dir, "big.onnx");
  // 50 initializers of 4 MiB: 200 MiB of raw_data.
  const inits: Tensor[] = [];
  for (let i = 0; i < 50; i++) {
    const data = new Float32Array(MB);
    for (let j = 0; j < data.length; j += 1024) data[j] = i + j;
    inits.push(
      new Tensor(
        DataType.FLOAT,
        [1024, 1024],
        { kind: "raw", bytes: new Uint8Array(data.buffer) },
        `w${i}`,
      ),
    );
  }
  const nodes = inits.map((t, i) =>
    node("Add", [i === 0 ? "x" : `h${i - 1}`, t.name], [i === 49 ? "y" : `h${i}`]),
  );
  saveModel(
    model(
      graph({
        nodes,
        initializers: inits,
        inputs: [valueInfo("x", "float", [1024, 1024])],
        outputs: [valueInfo("y", "float", [1024, 1024])],
      }),
      13,
    ),
    path,
  );
  inits.length = 0;
  const size = statSync(path).size;
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;
  const base = child("baseline");
  const loads = Array.from({ length: 5 }, () => child("load", path));
  const trips = Array.from({ length: 3 }, () => child("roundtrip", path, join(dir, "copy.onnx")));
  const decodeMs = median(loads.map((l) => l.decode));
  const loadMs = median(loads.map((l) => l.total));
  const saveMs = median(trips.map((t) => t.save));
  const loadRss = Math.max(...loads.map((l) => l.rss));
  const tripRss = Math.max(...trips.map((t) => t.rss));
  const same = readFileSync(path).equals(readFileSync(join(dir, "copy.onnx")));
  console.log(
    `model: ${(size / MB).toFixed(1)} MiB, 50 initializers of 4 MiB (median of 5 loads, 3 load+save)`,
  );
  console.log(
    `load (read + decode):  ${loadMs.toFixed(1)} ms = ${(size / 1e6 / (loadMs / 1e3)).toFixed(0)} MB/s`,
  );
  console.log(
    `decode only:           ${decodeMs.toFixed(1)} ms = ${(size / 1e6 / (decodeMs / 1e3)).toFixed(0)} MB/s`,
  );
  console.log(
    `save (encode + write): ${saveMs.toFixed(1)} ms = ${(size / 1e6 / (saveMs / 1e3)).toFixed(0)} MB/s`,
  );
  console.log(
    `peak RSS, load:        ${(loadRss / MB).toFixed(0)} MiB = ${(loadRss / size).toFixed(2)}x file size (node alone: ${(base.rss / MB).toFixed(0)} MiB)`,
  );
  console.log(
    `peak RSS, load + save: ${(tripRss / MB).toFixed(0)} MiB = ${(tripRss / size).toFixed(2)}x file size`,
  );
  console.log(`saved copy identical to the original bytes: ${same}`);
  const py = spawnSync(
    "/usr/bin/python3",
    [
      "-c",
      `import onnx,time\nt=time.perf_counter();m=onnx.load(${JSON.stringify(path)});t1=time.perf_counter();onnx.save(m,${JSON.stringify(join(dir, "py.onnx"))});t2=time.perf_counter();print(t1-t,t2-t1)`,
    ],
    { encoding: "utf8" },
  );
  if (py.status === 0) {
    const [pl, ps] = py.stdout
      .trim()
      .split(" ")
      .map((s) => Number(s) * 1000);
    console.log(
      `python onnx 1.12, same file: load ${pl!.toFixed(1)} ms, save ${ps!.toFixed(1)} ms -> ratio python/ours: load ${(pl! / loadMs).toFixed(2)}, save ${(ps! / saveMs).toFixed(2)}`,
    );
  }
  const ok = size / 1e6 / (loadMs / 1e3) >= 1000 && tripRss <= 1.5 * size;
  console.log(`targets (load >= 1 GB/s, peak RSS <= 1.5x): ${ok ? "met" : "NOT met"}`);
  rmSync(path, { force: true });
  rmSync(join(dir, "copy.onnx"), { force: true });
  await nodeHeavy(dir, child);
  rmSync(dir, { recursive: true, force: true });
}

/** One measurement in a fresh process (this file in another mode), of this checkout's dist/. */
function childProcess(...args: string[]): any {
  return childOf(undefined, ...args);
}

/** One measurement in a fresh process, of `dist` (a file URL ending in "/") or this dist/. */
function childOf(dist: string | undefined, ...args: string[]): any {
  const tsx = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
  const self = new URL(import.meta.url).pathname;
  const env = dist ? { ...process.env, BENCH_DIST: dist } : process.env;
  const r = spawnSync(process.execPath, ["--import", tsx, self, ...args], {
    encoding: "utf8",
    env,
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").pop()!);
}

/**
 * What loading the chain cannot go below in this runtime: making its IR objects alone, with no
 * wire format to read — per node the object, its input and output lists, its name and output
 * strings new (the input is the previous output, the
 * attribute list shared, as decoding gives) — in a fresh process, garbage collection included.
 */
function irFloor(count: number): { build: number; buildCpu: number } {
  const digits = Array.from({ length: count }, (_, i) => String(i));
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const shared = [{ name: "axes" }, { name: "keepdims" }];
  const [t0, c0] = [performance.now(), cpu()];
  const nodes: object[] = [];
  let previous = "x";
  for (let i = 0; i < count; i++) {
    // A short concatenation is made flat: a new string of its own, as decoding makes one.
    const d = digits[i]!;
    const output = "v" + d;
    nodes.push({
      opType: "ReduceSum",
      domain: "",
      name: "n" + d,
      inputs: [previous],
      outputs: [output],
      attributes: shared,
    });
    previous = output;
  }
  const [t1, c1] = [performance.now(), cpu()];
  if (nodes.length !== count) throw new Error("floor: lost nodes");
  return { build: t1 - t0, buildCpu: c1 - c0 };
}

/** Load and save (or print and parse) of a node-heavy model: one measurement, in this process. */
async function nodeHeavyChild(what: string, path: string, outPath: string): Promise<void> {
  // BENCH_DIST: another checkout's dist/ (--base), else this one's.
  const dist = process.env.BENCH_DIST ?? "../dist/";
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  if (what === "nodes") {
    const files = await import(dist + "io/files.js");
    const [t0, c0] = [performance.now(), cpu()];
    const m = files.loadModel(path);
    const [t1, c1] = [performance.now(), cpu()];
    files.saveModel(m, outPath);
    const [t2, c2] = [performance.now(), cpu()];
    const r = { load: t1 - t0, loadCpu: c1 - c0, save: t2 - t1, saveCpu: c2 - c1, rss: peakRss() };
    console.log(JSON.stringify(r));
    return;
  }
  const { decodeModel } = await import(dist + "io/codec.js");
  const { printModel } = await import(dist + "text/print.js");
  const { parseModelText } = await import(dist + "text/parse.js");
  const m = decodeModel(readFileSync(path));
  const [t0, c0] = [performance.now(), cpu()];
  const text: string = printModel(m);
  const [t1, c1] = [performance.now(), cpu()];
  parseModelText(text);
  const [t2, c2] = [performance.now(), cpu()];
  const bytes = Buffer.byteLength(text);
  console.log(
    JSON.stringify({ print: t1 - t0, printCpu: c1 - c0, parse: t2 - t1, parseCpu: c2 - c1, bytes }),
  );
}

/** The node-heavy part of the benchmark: models made here, measured in children. */
async function nodeHeavy(
  dir: string,
  child: (...args: string[]) => any,
  baseDist?: string,
): Promise<void> {
  const { encodeModel } = await import("../src/io/codec.js");
  const { expandPipeline } = await import("../dist/expand/pipeline.js");
  const { runPass } = await import("../dist/passes/manager.js");
  const { modelOf, passContext } = await import("../dist/passes/pass.js");
  const chainPath = join(dir, "chain100k.onnx");
  const nodes: Node[] = [];
  for (let i = 0; i < 100_000; i++)
    nodes.push(
      node(
        "ReduceSum",
        [i ? `v${i - 1}` : "x"],
        [`v${i}`],
        { axes: [1], keepdims: 1 },
        { name: `n${i}` },
      ),
    );
  const chainGraph = graph({
    name: "chain",
    nodes,
    inputs: [valueInfo("x", "float", [2, 3])],
    outputs: [valueInfo("v99999", "float", [2, 1])],
  });
  writeFileSync(chainPath, encodeModel(model(chainGraph, 12, 7)));
  const calls: Node[] = [];
  for (let i = 0; i < 100_000; i++)
    calls.push(
      node("ReduceLogSum", [i ? `v${i - 1}` : "x"], [`v${i}`], { keepdims: 1 }, { name: `n${i}` }),
    );
  const callGraph = graph({
    name: "calls",
    nodes: calls,
    inputs: [valueInfo("x", "float", [2, 3])],
    outputs: [valueInfo("v99999", "float", [1, 1])],
  });
  const expanded = modelOf(runPass(expandPipeline(), model(callGraph, 18), passContext()));
  const expandedPath = join(dir, "expanded200k.onnx");
  writeFileSync(expandedPath, encodeModel(expanded));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  const rate = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1e3)).toFixed(0);
  const mark = (ok: boolean) => (ok ? "[meets target]" : "[misses target]");
  console.log("\nnode-heavy models (issue 19 targets: load, save >= 60 MB/s; text >= 20 MB/s)");
  // This checkout's dist/, and with --base another's beside it, runs interleaved.
  const builds: [string, (...args: string[]) => any][] = [["", child]];
  if (baseDist) builds.push(["base: ", (...args: string[]) => childOf(baseDist, ...args)]);
  const interleaved = (args: string[]) => {
    const runs: any[][] = builds.map(() => []);
    for (let i = 0; i < 3; i++) builds.forEach(([, c], k) => runs[k]!.push(c(...args)));
    return runs;
  };
  for (const [label, path, count] of [
    ["100k-node ReduceSum chain", chainPath, nodes.length],
    ["expanded 100k ReduceLogSum calls", expandedPath, expanded.graph.nodes.length],
  ] as const) {
    const size = statSync(path).size;
    const out = join(dir, "copy.onnx");
    interleaved(["nodes", path, out]).forEach((runs, k) => {
      const same = readFileSync(path).equals(readFileSync(out));
      const f = (key: string) => median(runs.map((r) => r[key]));
      console.log(
        `${builds[k]![0]}${label} (${count.toLocaleString("en-US")} nodes, ${(size / 1e6).toFixed(1)} MB), first call in a fresh process:` +
          ` load ${f("load").toFixed(0)} ms = ${rate(size, f("load"))} MB/s (CPU ${f("loadCpu").toFixed(0)} ms) ${mark(size / 1e3 / f("load") >= 60)},` +
          ` save ${f("save").toFixed(0)} ms = ${rate(size, f("save"))} MB/s (CPU ${f("saveCpu").toFixed(0)} ms) ${mark(size / 1e3 / f("save") >= 60)},` +
          ` peak RSS ${(Math.max(...runs.map((r) => r.rss)) / MB).toFixed(0)} MiB; saved bytes identical: ${same}`,
      );
    });
  }
  const floors = Array.from({ length: 3 }, () => child("floor", String(nodes.length)));
  const fl = (key: string) => median(floors.map((r) => r[key])).toFixed(0);
  console.log(
    `floor: making the chain's IR objects alone (no wire format read), fresh process: ${fl("build")} ms (CPU ${fl("buildCpu")} ms)`,
  );
  interleaved(["text", chainPath, ""]).forEach((texts, k) => {
    const bytes = texts[0].bytes as number;
    const p = median(texts.map((t) => t.print));
    const q = median(texts.map((t) => t.parse));
    console.log(
      `${builds[k]![0]}text of the chain (${(bytes / 1e6).toFixed(1)} MB): print ${p.toFixed(0)} ms = ${rate(bytes, p)} MB/s ${mark(bytes / 1e3 / p >= 20)},` +
        ` parse ${q.toFixed(0)} ms = ${rate(bytes, q)} MB/s ${mark(bytes / 1e3 / q >= 20)}` +
        ` (CPU: print ${median(texts.map((t) => t.printCpu)).toFixed(0)} ms, parse ${median(texts.map((t) => t.parseCpu)).toFixed(0)} ms)`,
    );
  });
}
