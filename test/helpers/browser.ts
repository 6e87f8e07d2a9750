// Headless Chromium for the browser tests: Debian's chromium-headless-shell driven by
// playwright-core (which downloads no browser). Found at $CHROMIUM_PATH or the Debian paths.
// The browser tests serve the page with `serveInspector` (src/cli/server.ts), so they run under
// the page's header set (PAGE_HEADERS: its Content-Security-Policy, cross-origin isolation);
// `serveStatic` serves a copy without them, and `collectLogs` catches what the page and its
// worker log, CSP violations included.

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { loadModel } from "../../src/io/files.js";
import { readRange } from "../../src/ir/tensor.js";
import { serveInspector, type InspectServer } from "../../src/cli/commands/inspect.js";

const CANDIDATES = [
  "/usr/bin/chromium-headless-shell",
  "/usr/lib/chromium/chromium-headless-shell",
  "/usr/lib/chromium/headless_shell",
  "/usr/bin/chromium",
];

/** The Chromium binary, or undefined (then the browser tests skip). */
export function findChromium(): string | undefined {
  const env = process.env.CHROMIUM_PATH;
  if (env) return existsSync(env) ? env : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

export const NO_CHROMIUM =
  "no Chromium found (apt-get install chromium-headless-shell, or set CHROMIUM_PATH): browser tests skipped";

/**
 * Launches headless Chromium. `webgpu`: with WebGPU on SwiftShader's software adapter (the flags
 * of scripts/targets/webgpu-judge.ts), for onnxruntime-web's WebGPU execution provider.
 */
export async function launchChromium(
  executablePath: string,
  opts: { webgpu?: boolean } = {},
): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      ...(opts.webgpu
        ? [
            "--enable-unsafe-webgpu",
            "--enable-unsafe-swiftshader",
            "--use-webgpu-adapter=swiftshader",
          ]
        : ["--disable-gpu"]),
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

/** The page served by `inspect`, and a 1400×900 tab on it in headless Chromium. */
export interface PageSession {
  browser: Browser;
  srv: InspectServer;
  page: Page;
  close(): Promise<void>;
}

/**
 * Builds the page (scripts/build-web.mjs), serves it with `serveInspector` and opens a tab on
 * it: the set-up every browser test of the page shares. `acceptDownloads` for tests of exports.
 */
export async function startPageSession(
  chromiumPath: string,
  opts: { acceptDownloads?: boolean } = {},
): Promise<PageSession> {
  const root = join(import.meta.dirname, "..", "..");
  execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs")], { stdio: "ignore" });
  const srv = await serveInspector();
  const browser = await launchChromium(chromiumPath);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, ...opts });
  return {
    browser,
    srv,
    page,
    close: async () => {
      await browser.close();
      srv.server.close();
    },
  };
}

/**
 * The messages Chromium logs for the page and its workers (through the DevTools protocol, which
 * sees a worker's console too): Content-Security-Policy violations among them.
 */
export async function collectLogs(page: Page): Promise<string[]> {
  const logs: string[] = [];
  page.on("pageerror", (e) => logs.push(`page error: ${e.message}`));
  const cdp = await page.context().newCDPSession(page);
  cdp.on("Log.entryAdded", (e) => logs.push(`${e.entry.source} ${e.entry.level}: ${e.entry.text}`));
  await cdp.send("Log.enable");
  await cdp.send("Target.setAutoAttach", {
    autoAttach: true,
    waitForDebuggerOnStart: false,
    flatten: true,
  });
  return logs;
}

/** The logged lines that report a Content-Security-Policy violation. */
export const cspViolations = (logs: string[]): string[] =>
  logs.filter((l) => /Content Security Policy|Content-Security-Policy/i.test(l));

/**
 * A plain static server for a copy of the page (dist/web) on 127.0.0.1, without the page's header
 * set: what a user gets serving the files with any web server. The page must still work there
 * (single-threaded, since it is not cross-origin isolated).
 */
export function serveStatic(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const name = new URL(req.url ?? "/", "http://x").pathname.slice(1) || "index.html";
    const file = join(dir, name);
    if (!/^[\w.-]+$/.test(name) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const type = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" }[
      extname(name)
    ];
    res.writeHead(200, type ? { "content-type": type } : {}).end(readFileSync(file));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const addr = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${addr.port}/`, server });
    }),
  );
}

/**
 * Opens the page at `url` and picks `files` (a model, or a model and its data files); resolves
 * when the first pane is drawn (or the page shows an error) and the page is idle again.
 */
export async function openInPage(page: Page, url: string, files: string | string[]): Promise<void> {
  await page.goto(url);
  await page.locator("body[data-state=ready]").waitFor();
  await page.setInputFiles("#file", files);
  await page.waitForFunction(
    () =>
      document.getElementById("pane-a")?.dataset.drawn !== undefined ||
      !!document.body.dataset.error,
    undefined,
    { timeout: 120_000 },
  );
  await page.waitForFunction(() => document.body.dataset.state !== "busy", undefined, {
    timeout: 120_000,
  });
}

/**
 * Inside a describe: one page session and one scratch folder for the suite, opened before its
 * tests and closed after them (the set-up of the page's browser tests).
 */
export function pageSuite(prefix: string): { session: () => PageSession; work: () => string } {
  let session: PageSession | undefined;
  let work = "";
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), prefix));
    session = await startPageSession(findChromium()!);
  }, 120_000);
  afterAll(async () => {
    await session?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  return { session: () => session!, work: () => work };
}

/**
 * A model the page downloaded holds, for every initializer stored in a data file of the source,
 * the same bytes (read by each one's range from its own data file).
 */
export function expectSameStoredWeights(source: string, downloaded: string): void {
  const got = loadModel(downloaded);
  for (const x of loadModel(source).graph.initializers) {
    if (!x.range) continue;
    const y = got.graph.initializers.find((u) => u.name === x.name)!;
    expect(Buffer.from(readRange(y.range!)).equals(Buffer.from(readRange(x.range))), x.name).toBe(
      true,
    );
  }
}
