// `npm run bench:web`: the inspector page at scale (issue 17), in headless Chromium at 1400×900,
// served by the real `onnx-expand inspect` server. For each model: the time from picking the file
// to <body data-state="ready">, the longest main-thread task meanwhile (Long Tasks API), the frame
// time of wheel zooms and of a drag (input to the end of the next frame), and the renderer
// processes' RSS (from /proc, found through the DevTools protocol). "Expand all" on the 5,000
// chain is timed from the click. Arguments: names of cases to run (substrings); default all.
// Then the interpreter's runs in the page, cross-origin isolated (helper threads) against not
// (one thread), side by side (web-run.ts; case names "run products", and "run resnet18",
// "run isnet_quint8", "run isnet_fp16" when INTERP_MODELS names the folder of the real models;
// WEB_RUNS runs of each, default 5). With INTERP_MODELS, also page Expand and Convert beside the
// CLI's expand/convert + diff (web-transform.ts; case name "transform"). Case "first zoom": the
// first wheel-zoom frame at the 20,000 chain's overview, median of 5 page loads (web-zoom.ts);
// case "llm": the corpus decoder of 803 MB opened, drawn and run in the page (web-llm.ts).
// Each action is traced too (Chromium's "toplevel" category): its longest main-thread task by the
// clock and that task's time on the CPU. On a loaded machine the two differ widely: a task's clock
// time counts the time the renderer waited for a core (and for the GPU process), its CPU time only
// the page's own work.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { serveInspector, webDir } from "../src/cli/server.js";
import { saveModel } from "../src/io/files.js";
import { findChromium, launchChromium, serveStatic } from "../test/helpers/browser.js";
import { benchRuns, PRODUCTS_MODEL, type RunCase, type RunResult } from "./web-run.js";
import { webChain, webWide } from "./web-models.js";
import { INSTRUMENT, rendererRss, traceTasks, waitReady, type TraceTask } from "./web-page.js";
import { firstZoom, type FirstZoom } from "./web-zoom.js";
import { benchLlm, llmFolder, type LlmResult } from "./web-llm.js";

const root = join(import.meta.dirname, "..");

interface Case {
  name: string;
  file: string;
  /** Click "Expand" (all) after loading and time that instead. */
  expand?: boolean;
  /** Target for the time to ready, ms. */
  target?: number;
  frames?: boolean;
}

interface Result {
  name: string;
  nodes: string;
  readyMs: number | string;
  longestTaskMs: number;
  /** From the trace: the longest main-thread task's clock and CPU time, and the most CPU any took. */
  traceTask?: TraceTask;
  zoomMs?: number[];
  panMs?: number[];
  drawMs?: number;
  rssMb?: number;
  target?: number;
}

async function frames(page: Page): Promise<{ zoom: number[]; pan: number[] }> {
  const box = (await page.locator("#pane-a").boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  for (let i = 0; i < 6; i++) {
    await page.mouse.wheel(0, i % 2 ? 120 : -120);
    await page.waitForTimeout(150);
  }
  await page.mouse.down();
  for (let i = 1; i <= 10; i++) {
    await page.mouse.move(x + i * 12, y + i * 8);
    await page.waitForTimeout(60);
  }
  await page.mouse.up();
  await page.waitForTimeout(200);
  return page.evaluate(() => {
    const b = (window as unknown as { bench: { wheel: number[]; pan: number[] } }).bench;
    return { zoom: b.wheel, pan: b.pan };
  });
}

/** The canvas's own figure for its last frame (GraphCanvas's lastFrameMs), if it shows it. */
async function canvasFrameMs(page: Page): Promise<number | undefined> {
  const v = await page
    .locator("#pane-a .graph")
    .getAttribute("data-frame-ms")
    .catch(() => null);
  return v === null ? undefined : Number(v);
}

async function runCase(browser: Browser, url: string, c: Case): Promise<Result> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(INSTRUMENT);
  const out: Result = { name: c.name, nodes: "", readyMs: "", longestTaskMs: 0, target: c.target };
  try {
    await page.goto(url);
    await page.locator("body[data-state=ready]").waitFor({ timeout: 30_000 });
    const trace = () => browser.startTracing(page, { categories: ["toplevel"] });
    if (!c.expand) await trace();
    await page.setInputFiles("#file", c.file);
    let error = await waitReady(page);
    if (!error && c.expand) {
      await trace();
      await page.evaluate(() => {
        const b = (window as unknown as { bench: { states: unknown[]; tasks: unknown[] } }).bench;
        b.states.length = 0;
        b.tasks.length = 0;
      });
      await page.selectOption("#expand-mode", "all");
      await page.click("#expand-form button");
      error = await waitReady(page);
    }
    const m = await page.evaluate(() => {
      const b = (
        window as unknown as { bench: { t0: number; ready: number; tasks: [number, number][] } }
      ).bench;
      const after = b.tasks.filter(([s]) => s + 1 >= b.t0).map(([, d]) => d);
      return { ms: b.ready - b.t0, longest: Math.max(0, ...after) };
    });
    out.traceTask = traceTasks(await browser.stopTracing());
    const side = c.expand ? "b" : "a";
    out.nodes = (await page.locator(`#pane-${side}`).getAttribute("data-drawn")) ?? "";
    out.readyMs = error ? `error: ${error.split("\n")[0]}` : Math.round(m.ms);
    out.longestTaskMs = Math.round(m.longest);
    if (!error && c.frames) {
      const f = await frames(page);
      out.zoomMs = f.zoom.map(Math.round);
      out.panMs = f.pan.map(Math.round);
      out.drawMs = await canvasFrameMs(page);
    }
    out.rssMb = await rendererRss(browser);
  } catch (e) {
    out.readyMs = `failed: ${(e as Error).message.split("\n")[0]}`;
    await browser.stopTracing().catch(() => undefined);
    out.rssMb = await rendererRss(browser);
  } finally {
    await context.close().catch(() => undefined);
  }
  return out;
}

const median = (xs: number[] | undefined) => {
  if (!xs?.length) return "–";
  const s = [...xs].sort((a, b) => a - b);
  return `${s[Math.floor(s.length / 2)]} (max ${s[s.length - 1]})`;
};

async function main(): Promise<void> {
  const chromium = findChromium();
  if (!chromium) throw new Error("no Chromium found (apt-get install chromium-headless-shell)");
  execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
  const dir = mkdtempSync(join(tmpdir(), "bench-web-"));
  const save = (name: string, m: Parameters<typeof saveModel>[0]) => {
    const p = join(dir, name);
    saveModel(m, p);
    return p;
  };
  const chain1k = save("chain-1000.onnx", webChain(1000));
  const expanded = join(dir, "chain-1000-expanded.onnx");
  execFileSync(
    process.execPath,
    ["--import", "tsx", join(root, "src", "cli", "bin.ts"), "expand", chain1k, "-o", expanded],
    { stdio: "ignore", cwd: root },
  );
  const cases: Case[] = [
    { name: "chain 1,000", file: chain1k },
    { name: "chain 5,000", file: save("chain-5000.onnx", webChain(5000)) },
    {
      name: "chain 20,000",
      file: save("chain-20000.onnx", webChain(20000)),
      target: 3000,
      frames: true,
    },
    { name: "wide 50 branches", file: save("wide-50.onnx", webWide(50, 99)) },
    {
      name: "wide 100 branches",
      file: save("wide-100.onnx", webWide(100, 199)),
      target: 3000,
      frames: true,
    },
    { name: "chain 1,000 expanded by the CLI", file: expanded, target: 1000 },
    {
      name: "chain 5,000: Expand all in the page",
      file: join(dir, "chain-5000.onnx"),
      expand: true,
    },
  ];
  const products = join(dir, "products.onnxtxt");
  writeFileSync(products, PRODUCTS_MODEL);
  const runCases: RunCase[] = [{ name: "run products", file: products }];
  // Real models from INTERP_MODELS (bench/interp-models.ts makes them): ResNet-18, and the
  // deployed IS-Net forms (float16, quantized) at 1024×1024.
  for (const m of ["resnet18", "isnet_quint8", "isnet_fp16"]) {
    const file = join(process.env.INTERP_MODELS ?? "", `${m}.onnx`);
    if (process.env.INTERP_MODELS && existsSync(file)) runCases.push({ name: `run ${m}`, file });
  }
  const only = process.argv.slice(2);
  const wanted = (name: string) => !only.length || only.some((o) => name.includes(o));
  const srv = await serveInspector();
  const plain = await serveStatic(webDir());
  const browser = await launchChromium(chromium);
  const results: (Result | RunResult | FirstZoom | LlmResult)[] = [];
  try {
    for (const c of cases) {
      if (!wanted(c.name)) continue;
      const r = await runCase(browser, srv.url, c);
      results.push(r);
      console.log(
        `${r.name.padEnd(38)} nodes ${String(r.nodes).padStart(6)}  ready ${String(r.readyMs).padStart(7)} ms${
          r.target ? ` (target ≤ ${r.target})` : ""
        }  longest task ${r.longestTaskMs} ms${
          r.traceTask
            ? ` (traced: ${r.traceTask.wallMs} ms, ${r.traceTask.cpuMs} ms CPU; most CPU in a task ${r.traceTask.maxCpuMs} ms)`
            : ""
        }  renderer RSS ${r.rssMb?.toFixed(0) ?? "?"} MB` +
          (r.zoomMs
            ? `  zoom frame ${median(r.zoomMs)} ms  pan frame ${median(r.panMs)} ms  canvas draw ${r.drawMs?.toFixed(1) ?? "?"} ms`
            : ""),
      );
    }
    if (wanted("first zoom")) {
      const z = await firstZoom(
        browser,
        srv.url,
        join(dir, "chain-20000.onnx"),
        "first zoom, chain 20,000",
      );
      results.push(z);
      console.log(
        `${z.name.padEnd(38)} first wheel-zoom frame at the overview, median of ${z.frames.length} page loads ${z.medianMs} ms (target ≤ ${z.target}; each: ${z.frames.join(", ")} ms; longest task after the wheel: ${z.tasks.join(", ")} ms; traced, CPU: ${z.traced.map((x) => x.maxCpuMs).join(", ")} ms)`,
      );
    }
    if (wanted("llm")) {
      const folder = llmFolder(root);
      if (!folder)
        console.log(
          "llm: left out (no llama_medium_dynamo: scripts/corpus/export.ts --llm-size medium, or set WEB_LLM)",
        );
      else {
        const r = await benchLlm(browser, srv.url, folder);
        results.push(r);
        console.log(
          `${r.name.padEnd(38)} nodes ${r.nodes} (${r.boxes} boxes)  ready ${r.readyMs} ms  renderer RSS ${r.rssReadyMb?.toFixed(0) ?? "?"} MB  Run (sequence 8) ${r.runMs ?? "–"} ms (worker ${r.workerRunMs?.toFixed(0) ?? "–"} ms)  renderer RSS during the run, most ${r.rssRunPeakMb?.toFixed(0) ?? "?"} MB`,
        );
      }
    }
    const runs = runCases.filter((c) => wanted(c.name));
    const repeats = Number(process.env.WEB_RUNS ?? 5);
    if (runs.length)
      results.push(...(await benchRuns(browser, srv.url, plain.url, runs, repeats, 900_000)));
  } finally {
    await browser.close();
    srv.server.close();
    plain.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n${JSON.stringify(results)}`);
  // Page Expand/Convert beside the CLI's (bench/web-transform.ts), on INTERP_MODELS' swin_t and
  // convnext_tiny when they are there.
  if (process.env.INTERP_MODELS && wanted("transform"))
    execFileSync(
      process.execPath,
      [
        "--import",
        new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href,
        join(root, "bench", "web-transform.ts"),
        process.env.INTERP_MODELS,
      ],
      { stdio: "inherit" },
    );
}

await main();
