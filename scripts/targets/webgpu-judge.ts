// onnxruntime-web's WebGPU execution provider as the judge of the `webgpu` profile: the release
// the project pins as a dev dependency (node_modules/onnxruntime-web), run in headless Chromium
// (test/helpers/browser.ts's launcher) on SwiftShader's WebGPU adapter, the page and the model
// served from 127.0.0.1. A session is created with `executionProviders: ['webgpu']` and
// `logSeverityLevel: 0`, and onnxruntime's own "Node placements" log is read: the nodes it
// placed on the CPU execution provider (after its graph optimizations), by op. The model then
// runs on seeded inputs and its outputs come back for comparison with onnxruntime-node's on the
// original model (norm-wise).
//
//   npx tsx scripts/targets/webgpu-judge.ts MODEL.onnx [LOWERED.onnx] [--dim name=v ...]
//     [--input-range name=lo:hi ...]
//
// prints the nodes on CPU of each model and, given two, the largest norm-wise error of the second
// on WebGPU against the first on onnxruntime-node (inputs with a declared range, which `lower
// --input-range` relied on, drawn within it).

import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import * as ortNode from "onnxruntime-node";
import type { Browser, Page } from "playwright-core";
import { randomInputs } from "../../src/app/random-inputs.js";
import { drawWithinRanges, parseInputRanges, type InputRanges } from "../../src/app/ranges.js";
import { floatErrors } from "../../src/interp/backend-test.js";
import type { RTensor } from "../../src/interp/types.js";
import { loadModel } from "../../src/io/files.js";
import type { Model } from "../../src/ir/types.js";
import { walkTensors } from "../../src/ir/visit.js";
import { findChromium, launchChromium, NO_CHROMIUM } from "../../test/helpers/browser.js";
import { runOrt } from "../../test/helpers/ort.js";
import { fromOrt, ORT_TYPE } from "../../test/helpers/ort-tensors.js";

const root = join(import.meta.dirname, "..", "..");
const ORT_WEB = join(root, "node_modules", "onnxruntime-web");
const DIST = join(ORT_WEB, "dist");

/** The onnxruntime-web release that judges (package.json pins it). */
export const ORT_WEB_VERSION = (
  JSON.parse(readFileSync(join(ORT_WEB, "package.json"), "utf8")) as { version: string }
).version;

/** What onnxruntime-web's session said about a model on WebGPU. */
export interface WebgpuPlacement {
  /** Nodes per execution provider, as onnxruntime's "Node placements" log lists them. */
  byProvider: Record<string, number>;
  /** Nodes placed on the CPU execution provider. */
  cpuNodes: number;
  /** Those nodes by op type (counts). */
  cpuOps: Record<string, number>;
  /** Those nodes' names, in the log's order. */
  cpuNames: string[];
}

export interface WebgpuRun extends WebgpuPlacement {
  outputs: Record<string, RTensor>;
  /** The names of the nodes placed on each provider, in the log's order. */
  names: Record<string, string[]>;
}

interface Wire {
  type: string;
  dims: number[];
  /** The typed array's bytes, base64. */
  bytes: string;
}

const toWire = (t: RTensor): Wire => {
  const type = ORT_TYPE[t.dtype];
  if (!type || type === "string")
    throw new Error(`no onnxruntime-web tensor for element type ${t.dtype}`);
  const d = t.data as unknown as ArrayBufferView;
  return {
    type,
    dims: t.shape,
    bytes: Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString("base64"),
  };
};

const ARRAYS: Record<string, new (b: ArrayBuffer) => ArrayBufferView> = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  bool: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
};

const fromWire = (w: Wire): RTensor => {
  const bytes = Buffer.from(w.bytes, "base64");
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const Ctor = ARRAYS[w.type];
  if (!Ctor) throw new Error(`onnxruntime-web gave an output of type ${w.type}`);
  return fromOrt(new ortNode.Tensor(w.type as never, new Ctor(buf) as never, w.dims));
};

/**
 * Reads onnxruntime's placement log: " Node(s) placed on [EP]. Number of nodes: N" (or "All
 * nodes placed on [EP]") followed, at verbose level, by one "  Op (name)" line per node.
 */
export function parsePlacement(lines: string[]): WebgpuPlacement {
  const byProvider: Record<string, number> = {};
  const cpuOps: Record<string, number> = {};
  const cpuNames: string[] = [];
  let current: string | undefined;
  for (const line of lines) {
    const head = /(?:All nodes|Node\(s\)) placed on \[(\w+)\]\. Number of nodes: (\d+)/.exec(line);
    if (head) {
      current = head[1]!;
      byProvider[current] = (byProvider[current] ?? 0) + Number(head[2]);
      continue;
    }
    const node = /\]\s{2,}([\w.]+) \((.*)\)\s*$/.exec(line);
    if (node && current === "CPUExecutionProvider") {
      cpuOps[node[1]!] = (cpuOps[node[1]!] ?? 0) + 1;
      cpuNames.push(node[2]!);
    } else if (!node) current = undefined;
  }
  return { byProvider, cpuNodes: byProvider.CPUExecutionProvider ?? 0, cpuOps, cpuNames };
}

/**
 * The names of the nodes the placement log lists under each provider (after "Node(s) placed on
 * [EP]"; "All nodes placed on [EP]" lists none).
 */
export function placedNames(lines: string[]): Record<string, string[]> {
  const names: Record<string, string[]> = {};
  let current: string | undefined;
  for (const line of lines) {
    const head = /(?:All nodes|Node\(s\)) placed on \[(\w+)\]\. Number of nodes: (\d+)/.exec(line);
    if (head) {
      current = head[1]!;
      names[current] ??= [];
      continue;
    }
    const node = /\]\s{2,}([\w.]+) \((.*)\)\s*$/.exec(line);
    if (node && current) names[current]!.push(node[2]!);
    else if (!node) current = undefined;
  }
  return names;
}

/**
 * The page: a module that loads onnxruntime-web and defines `judgeRun(arg)` (a session on WebGPU
 * with verbose logs, one run). Plain JavaScript, so that nothing of the transpiler reaches it.
 */
const page = (bundle: string) => `<!doctype html><meta charset="utf-8"><title>webgpu judge</title>
<script type="module">
import * as ort from "/${bundle}";
const arrays = { float32: Float32Array, float64: Float64Array, float16: Uint16Array, int8: Int8Array,
  uint8: Uint8Array, bool: Uint8Array, int16: Int16Array, uint16: Uint16Array, int32: Int32Array,
  uint32: Uint32Array, int64: BigInt64Array, uint64: BigUint64Array };
const bytesOf = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
function b64Of(v) {
  const u = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  let s = "";
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000));
  return btoa(s);
}
window.judgeRun = async (arg) => {
  if (!(await navigator.gpu?.requestAdapter())) return { error: "no WebGPU adapter" };
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = "verbose";
  try {
    const session = await ort.InferenceSession.create(arg.model, {
      executionProviders: ["webgpu"], logSeverityLevel: 0, logVerbosityLevel: 0,
      ...(Object.keys(arg.config).length ? { extra: arg.config } : {}),
      ...(arg.external.length ? { externalData: arg.external } : {}),
    });
    if (!arg.feeds) {
      await session.release();
      return { outputs: {} };
    }
    const feeds = {};
    for (const [k, w] of Object.entries(arg.feeds))
      feeds[k] = new ort.Tensor(w.type, new arrays[w.type](bytesOf(w.bytes)), w.dims);
    const out = await session.run(feeds);
    const outputs = {};
    for (const [k, t] of Object.entries(out))
      outputs[k] = { type: t.type, dims: [...t.dims], bytes: b64Of(await t.getData()) };
    await session.release();
    return { outputs };
  } catch (e) {
    return { error: String(e?.message ?? e).split("\\n")[0] };
  }
};
document.body.dataset.ready = "1";
</script>`;

/** The folder and location of each external data file of a model file. */
function externalFiles(path: string): string[] {
  const m = loadModel(path);
  const locations = new Set<string>();
  for (const t of walkTensors(m))
    if (t.data.kind === "external") {
      const loc = t.data.entries.find(([k]) => k === "location")?.[1];
      if (loc) locations.add(loc);
    }
  return [...locations];
}

/**
 * How the judge runs onnxruntime-web: the bundle the page imports and the session config
 * entries it passes (as `extra`). The release ships two WebGPU execution providers: its default
 * bundle (`onnxruntime-web`, dist/ort.min.mjs) maps "webgpu" to JSEP (JsExecutionProvider, the
 * kernels written in TypeScript), the `onnxruntime-web/webgpu` export (dist/ort.webgpu.min.mjs)
 * to the C++ WebGPU execution provider compiled into its wasm (WebGpuExecutionProvider).
 */
export interface JudgeOptions {
  bundle: string;
  config: Record<string, string>;
}

/**
 * The configuration judged: what onnxruntime's documentation tells a page that runs a model on
 * WebGPU to import (`onnxruntime-web/webgpu`), with no session config entry. The C++ provider's
 * `ep.webgpuexecutionprovider.enableInt64` (its int64 kernels) cannot be set from the release's
 * JavaScript: its WebGPU options forward only the keys they name, and session config entries
 * (`extra`) are added after the provider has read its configuration (an invalid value is not
 * even refused), so a page of this release runs without them.
 */
export const JUDGE_OPTIONS: JudgeOptions = { bundle: "ort.webgpu.min.mjs", config: {} };

/** "onnxruntime-web 1.30.0, ort.webgpu.min.mjs" (and the config entries, key=value). */
export function judgeLabel(o: JudgeOptions = JUDGE_OPTIONS): string {
  const config = Object.entries(o.config).map(([k, v]) => `${k}=${v}`);
  return [`onnxruntime-web ${ORT_WEB_VERSION}`, o.bundle, ...config].join(", ");
}

/**
 * A browser and a local server: `run` judges model files one at a time. `open` fails with a
 * reason when Chromium is absent or has no WebGPU adapter (see `webgpuUnavailable`).
 */
export class WebgpuJudge {
  private served = new Map<string, string>();
  private current: Page | undefined;
  private logs: string[] = [];
  private runs = 0;
  private constructor(
    private readonly browser: Browser,
    private readonly server: Server,
    private readonly url: string,
    readonly options: JudgeOptions,
  ) {}

  static async open(
    chromium = findChromium(),
    options: JudgeOptions = JUDGE_OPTIONS,
  ): Promise<WebgpuJudge> {
    if (!chromium) throw new Error(NO_CHROMIUM);
    if (!/^ort[\w.-]*\.mjs$/.test(options.bundle) || !existsSync(join(DIST, options.bundle)))
      throw new Error(
        `onnxruntime-web's ${options.bundle} not found in ${ORT_WEB} (a dev dependency)`,
      );
    const PAGE = page(options.bundle);
    const judge = { served: new Map<string, string>() };
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      if (path === "/") {
        res.writeHead(200, { "content-type": "text/html" }).end(PAGE);
        return;
      }
      const file =
        judge.served.get(path) ??
        (/^\/ort[\w.-]*\.m?(js|wasm)$/.test(path) ? join(DIST, path.slice(1)) : undefined);
      if (!file || !existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      const type = file.endsWith(".wasm")
        ? "application/wasm"
        : file.endsWith("js")
          ? "text/javascript"
          : "application/octet-stream";
      res
        .writeHead(200, { "content-type": type, "cache-control": "no-store" })
        .end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let browser: Browser;
    try {
      browser = await launchChromium(chromium, { webgpu: true });
    } catch (e) {
      server.close();
      throw e;
    }
    const j = new WebgpuJudge(browser, server, url, options);
    j.served = judge.served;
    return j;
  }

  /**
   * Places and runs a model file (its external data files served beside it) on WebGPU; without
   * `feeds`, places it only (a session is created, nothing runs; `outputs` is empty).
   */
  async run(modelPath: string, feeds?: Record<string, RTensor>): Promise<WebgpuRun> {
    const id = this.runs++;
    const base = `/m${id}`;
    this.served.set(`${base}/model.onnx`, resolve(modelPath));
    const external = externalFiles(modelPath).map((loc) => {
      this.served.set(
        `${base}/data/${encodeURIComponent(loc)}`,
        join(dirname(resolve(modelPath)), loc),
      );
      return { path: loc, data: `${base}/data/${encodeURIComponent(loc)}` };
    });
    const page = await this.page();
    const logs: string[] = [];
    this.logs = logs;
    let answered = false;
    try {
      const arg = {
        model: `${base}/model.onnx`,
        external,
        config: this.options.config,
        feeds: feeds && Object.fromEntries(Object.entries(feeds).map(([k, v]) => [k, toWire(v)])),
      };
      const r = (await page.evaluate(
        (a) => (window as unknown as { judgeRun: (x: unknown) => unknown }).judgeRun(a),
        arg,
      )) as { outputs: Record<string, Wire> } | { error: string };
      answered = true;
      if ("error" in r) throw new Error(`onnxruntime-web (WebGPU): ${r.error}`);
      // The console messages may arrive after the call returns: wait (at most 10 s) until every
      // node the placement headers count has its line.
      for (let waited = 0; waited < 10_000; waited += 100) {
        const p = parsePlacement(logs);
        const listed = Object.values(p.byProvider).reduce((a, b) => a + b, 0);
        const all = logs.some((l) => /All nodes placed on/.test(l));
        const named = Object.values(placedNames(logs)).reduce((a, b) => a + b.length, 0);
        if (all || (listed > 0 && named >= listed)) break;
        await new Promise((res) => setTimeout(res, 100));
      }
      const outputs = Object.fromEntries(
        Object.entries(r.outputs).map(([k, w]) => [k, fromWire(w)]),
      );
      return { ...parsePlacement(logs), outputs, names: placedNames(logs) };
    } catch (e) {
      // a page that did not answer is not reused (onnxruntime's own errors come as answers)
      if (!answered) {
        this.current = undefined;
        await page.close().catch(() => {});
      }
      throw e;
    } finally {
      for (const k of [...this.served.keys()]) if (k.startsWith(`${base}/`)) this.served.delete(k);
    }
  }

  /**
   * The page the runs share: onnxruntime-web and its wasm are loaded once (a page each run spent
   * most of a small model's time there). Each run reads the console lines that arrive during it.
   */
  private async page(): Promise<Page> {
    if (this.current) return this.current;
    const page: Page = await this.browser.newPage();
    page.on("console", (m) => this.logs.push(...m.text().split("\n")));
    await page.goto(`${this.url}/`);
    await page.locator("body[data-ready]").waitFor({ state: "attached" });
    this.current = page;
    return page;
  }

  /** Whether the page (a secure context: 127.0.0.1) gets a WebGPU adapter. */
  async hasAdapter(): Promise<boolean> {
    const page = await this.browser.newPage();
    try {
      await page.goto(`${this.url}/`);
      await page.locator("body[data-ready]").waitFor({ state: "attached" });
      return await page.evaluate(async () => !!(await navigator.gpu?.requestAdapter()));
    } finally {
      await page.close();
    }
  }

  async close(): Promise<void> {
    await this.browser.close();
    this.server.close();
  }
}

/** Why the WebGPU judge cannot run here (no Chromium, no adapter), or undefined when it can. */
export async function webgpuUnavailable(chromium = findChromium()): Promise<string | undefined> {
  if (!chromium) return NO_CHROMIUM;
  let judge: WebgpuJudge | undefined;
  try {
    judge = await WebgpuJudge.open(chromium);
    return (await judge.hasAdapter())
      ? undefined
      : `Chromium (${chromium}) has no WebGPU adapter through SwiftShader`;
  } catch (e) {
    return `Chromium (${chromium}) did not start for WebGPU: ${(e as Error).message.split("\n")[0]}`;
  } finally {
    await judge?.close();
  }
}

/** The largest norm-wise error over the outputs (non-float outputs: 0 if equal, else Infinity). */
export function worstNormwise(
  actual: Record<string, RTensor>,
  expected: Record<string, RTensor>,
): number {
  let worst = 0;
  for (const [k, e] of Object.entries(expected)) {
    const a = actual[k];
    if (!a) return Infinity;
    const f = floatErrors(a, e);
    if (f) worst = Math.max(worst, f.nonFinite ? Infinity : f.norm);
    else {
      const same =
        a.shape.join() === e.shape.join() &&
        a.data.length === e.data.length &&
        Array.prototype.every.call(e.data, (v: unknown, i: number) => v === a.data[i]);
      if (!same) return Infinity;
    }
  }
  return worst;
}

export interface WebgpuVerdict {
  /** The judge: release, bundle and session config entries (`judgeLabel`). */
  judge: string;
  /** Nodes onnxruntime-web places on CPU for the model as given, and for the lowered one. */
  before: WebgpuPlacement;
  after: WebgpuPlacement;
  /** The lowered model on WebGPU against the original on onnxruntime-node, norm-wise. */
  error: number;
}

/**
 * Judges a lowering for WebGPU: both files placed by onnxruntime-web, the lowered one run on
 * seeded inputs (the original's inputs with `dims` fixed, an input with a declared range drawn
 * within it: the lowering relied on it) and compared with the original on onnxruntime-node.
 */
export async function judgeWebgpu(
  judge: WebgpuJudge,
  original: { path: string; model?: Model },
  lowered: string,
  dims: ReadonlyMap<string, number>,
  seed = 7,
  ranges: InputRanges = new Map(),
): Promise<WebgpuVerdict> {
  const model = original.model ?? loadModel(original.path);
  const feeds = drawWithinRanges(randomInputs(model, seed, dims), ranges, seed) as Record<
    string,
    RTensor
  >;
  const expected = await runOrt(model, feeds);
  const before = await judge.run(original.path);
  const after = await judge.run(lowered, feeds);
  const strip = ({ outputs: _, names: __, ...p }: WebgpuRun): WebgpuPlacement => p;
  return {
    judge: judgeLabel(judge.options),
    before: strip(before),
    after: strip(after),
    error: worstNormwise(after.outputs, expected),
  };
}

/** "WebGpuExecutionProvider 120, CPUExecutionProvider 2": nodes per provider. */
export function providersCell(p: WebgpuPlacement): string {
  return Object.entries(p.byProvider)
    .map(([ep, n]) => `${ep} ${n}`)
    .join(", ");
}

/** "108 (Gather 50, Shape 40, …)": nodes on CPU and the ops among them. */
export function placementCell(p: WebgpuPlacement): string {
  const ops = Object.entries(p.cpuOps).sort((a, b) => b[1] - a[1]);
  return ops.length
    ? `${p.cpuNodes} (${ops.map(([o, n]) => `${o} ${n}`).join(", ")})`
    : `${p.cpuNodes}`;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const args = process.argv.slice(2);
  const dims = new Map<string, number>();
  const ranges: string[] = [];
  const files: string[] = [];
  let bundle = JUDGE_OPTIONS.bundle;
  let config: Record<string, string> | undefined;
  for (let i = 0; i < args.length; i++)
    if (args[i] === "--dim") {
      const [k, v] = args[++i]!.split("=");
      dims.set(k!, Number(v));
    } else if (args[i] === "--input-range") ranges.push(args[++i]!);
    else if (args[i] === "--bundle") bundle = args[++i]!;
    else if (args[i] === "--config") {
      // --config key=value (repeatable); --config none: no entries
      const kv = args[++i]!;
      config ??= {};
      if (kv !== "none") {
        const at = kv.indexOf("=");
        config[kv.slice(0, at)] = kv.slice(at + 1);
      }
    } else files.push(args[i]!);
  if (!files.length)
    throw new Error(
      "usage: webgpu-judge.ts MODEL.onnx [LOWERED.onnx] [--dim name=v ...] [--input-range name=lo:hi ...] [--bundle ort.min.mjs] [--config key=value | none ...]",
    );
  const options = { bundle, config: config ?? JUDGE_OPTIONS.config };
  const judge = await WebgpuJudge.open(undefined, options);
  console.log(`judge: ${judgeLabel(options)}`);
  try {
    if (files.length === 1) {
      const r = await judge.run(files[0]!);
      console.log(`${files[0]}: on CPU ${placementCell(r)}; ${providersCell(r)}`);
      if (r.cpuNames.length) console.log(`  on CPU: ${r.cpuNames.join(", ")}`);
    } else {
      const v = await judgeWebgpu(
        judge,
        { path: files[0]! },
        files[1]!,
        dims,
        7,
        parseInputRanges(...ranges),
      );
      console.log(`${files[0]}: on CPU ${placementCell(v.before)}; ${providersCell(v.before)}`);
      console.log(
        `${files[1]}: on CPU ${placementCell(v.after)}; ${providersCell(v.after)}; norm-wise error ${v.error.toExponential(1)}`,
      );
    }
  } finally {
    await judge.close();
  }
}
