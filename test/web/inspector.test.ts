// The inspector page in real headless Chromium (npm run test:web): each shipped example and three
// ONNX backend-test models are loaded, converted, expanded and run in the page, and what it shows
// must agree with the CLI (`info --json`, `diff --json`) and with the interpreter in Node; a `.txt`
// file and a model the CLI's run refuses are treated as the CLI treats them. Skipped, saying why,
// when no Chromium is installed. Screenshots of every step go to test/web/screenshots/.

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InspectServer } from "../../src/cli/commands/inspect.js";
import { loadModel } from "../../src/io/files.js";
import type { Model } from "../../src/ir/types.js";
import { run } from "../../src/interp/executor.js";
import { deriveSeed, randomTensor, seededRandom } from "../../src/interp/random.js";
import { toFloat64 } from "../../src/interp/tensor.js";
import type { RValue } from "../../src/interp/types.js";
import { DataType } from "../../src/ir/types.js";
import {
  findChromium,
  NO_CHROMIUM,
  openInPage,
  startPageSession,
  type PageSession,
} from "../helpers/browser.js";
import { runCli } from "../helpers/cli.js";
import type { DiffCounts } from "../../src/diff/index.js";

const root = join(import.meta.dirname, "..", "..");
const shots = join(root, "test", "web", "screenshots");
const chromium = findChromium();
const NODE_TESTS = join(root, "test", "data", "onnx-node-tests");

const examples = readdirSync(join(root, "examples"))
  .filter((f) => f.endsWith(".onnx"))
  .map((f) => join(root, "examples", f));
const nodeTests = [
  "test_reduce_log_sum_exp_keepdims_random",
  "test_cumsum_2d_axis_1",
  "test_where_example",
].map((t) => join(NODE_TESTS, t, "model.onnx"));
const MODELS = [...examples, ...nodeTests];

type Counts = Pick<DiffCounts, "same" | "main" | "all">;

/**
 * The CLI's diff --json reduced to the counts the page shows, recomputed from the diff's own
 * fields (main graph: its node list and hunks; all graphs: allNodes).
 */
function cliDiff(a: string, b: string): Counts {
  const r = runCli(["diff", "--json", a, b]);
  expect(r.code, r.stderr).toBe(0);
  const d = JSON.parse(r.stdout);
  const sum = (k: "removed" | "added") =>
    d.graph.hunks.reduce((n: number, h: Record<string, unknown[]>) => n + h[k]!.length, 0);
  const all = d.allNodes;
  return {
    same: d.same,
    main: {
      ...d.nodes,
      matched: d.graph.matched,
      changed: d.graph.changed.length,
      removed: sum("removed"),
      added: sum("added"),
      hunks: d.graph.hunks.length,
    },
    all: { ...all, removed: all.a - all.matched, added: all.b - all.matched },
  };
}

function cliInfo(file: string): { nodes: number; subgraphs: number } {
  const r = runCli(["info", "--json", file]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

/** The largest absolute output difference of a and b on the page's seeded random inputs. */
function nodeMaxAbs(a: Model, b: Model, seed: number): number {
  const defaults = new Set(a.graph.initializers.map((t) => t.name));
  const inputs: Record<string, RValue> = {};
  a.graph.inputs
    .filter((v) => !defaults.has(v.name))
    .forEach((v, i) => {
      const t = v.type!;
      if (t.kind !== "tensor") throw new Error("tensor inputs only");
      const shape = (t.shape ?? []).map((d) => (typeof d === "number" ? d : 1));
      inputs[v.name] = randomTensor(
        t.elemType || DataType.FLOAT,
        shape,
        seededRandom(deriveSeed(seed, i)),
      );
    });
  const ra = run(a, inputs);
  const rb = run(b, inputs);
  let m = 0;
  for (const [k, t] of Object.entries(ra)) {
    const x = toFloat64(t);
    const y = toFloat64(rb[k]!);
    for (let i = 0; i < x.length; i++)
      if (!(Number.isNaN(x[i]!) && Number.isNaN(y[i]!))) m = Math.max(m, Math.abs(x[i]! - y[i]!));
  }
  return m;
}

async function waitIdle(page: Page): Promise<void> {
  await page.waitForFunction(() => document.body.dataset.state !== "busy", undefined, {
    timeout: 120_000,
  });
}

const openModel = openInPage;

/** Nodes a pane's canvas draws with a mark: boxes, and Constants folded into them (each once). */
const markedNodes = (page: Page, side: "a" | "b", mark: string) =>
  page.evaluate(
    ([side, mark]) => {
      type Item = { kind: string; mark?: string; folded?: { index?: number; mark?: string }[] };
      type Hook = { panes: Record<string, { items(): Item[] }> };
      const hook = (window as unknown as { __inspector: Hook }).__inspector;
      let k = 0;
      const folded = new Set<number>();
      for (const it of hook.panes[side!]!.items()) {
        if ((it.kind === "op" || it.kind === "const") && it.mark === mark) k++;
        for (const f of it.folded ?? []) if (f.mark === mark) folded.add(f.index!);
      }
      return k + folded.size;
    },
    [side, mark],
  );
const pageCounts = async (page: Page): Promise<Counts> =>
  JSON.parse((await page.locator("#diff").getAttribute("data-counts"))!);
const drawn = async (page: Page, side: "a" | "b") =>
  Number(await page.locator(`#pane-${side}`).getAttribute("data-drawn"));

describe.skipIf(!chromium)(
  `inspector page in headless Chromium${chromium ? "" : ` (${NO_CHROMIUM})`}`,
  () => {
    let session: PageSession | undefined;
    let srv: InspectServer;
    let page: Page;
    let work: string;

    beforeAll(async () => {
      mkdirSync(shots, { recursive: true });
      work = mkdtempSync(join(tmpdir(), "inspector-"));
      session = await startPageSession(chromium!);
      ({ srv, page } = session);
      expect(srv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    }, 120_000);

    afterAll(async () => {
      await session?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    for (const file of MODELS) {
      const name =
        basename(file) === "model.onnx" ? basename(join(file, "..")) : basename(file, ".onnx");
      it(`${name}: loads, converts, expands and runs as the CLI does`, async () => {
        const info = cliInfo(file);
        const model = loadModel(file);
        await openModel(page, srv.url, file);
        await page.screenshot({ path: join(shots, `${name}-1-loaded.png`) });
        expect(await page.locator("#error").isHidden()).toBe(true);
        expect(Number(await page.locator("#facts").getAttribute("data-nodes"))).toBe(info.nodes);
        expect(await drawn(page, "a")).toBe(model.graph.nodes.length);
        if (info.subgraphs === 0) expect(await drawn(page, "a")).toBe(info.nodes);

        // convert: to 13, or to 18 from 13 and below
        const opset = model.opsetImports.find((o) => o.domain === "" || o.domain === "ai.onnx")!;
        const target = opset.version <= 13 ? 18 : 13;
        const converted = join(work, `${name}-${target}.onnx`);
        const cli = runCli(["convert", file, "--opset", String(target), "-o", converted]);
        await page.fill("#opset", String(target));
        await page.click("#convert-form button");
        await waitIdle(page);
        await page.screenshot({ path: join(shots, `${name}-2-converted.png`) });
        if (cli.code === 0) {
          expect(await page.locator("#error").isHidden()).toBe(true);
          expect(await pageCounts(page)).toMatchObject(cliDiff(file, converted));
          expect(await drawn(page, "b")).toBe(loadModel(converted).graph.nodes.length);
        } else {
          // A refused conversion: the page says so, naming each blocked node the CLI names.
          const shown = (await page.locator("#error").textContent()) ?? "";
          expect(shown).toContain("conversion: refused");
          for (const m of cli.stderr.matchAll(/node '([^']+)'/g)) expect(shown).toContain(m[1]);
        }

        // expand everything
        const expanded = join(work, `${name}-expanded.onnx`);
        const ex = runCli(["expand", file, "-o", expanded]);
        expect(ex.code, ex.stderr).toBe(0);
        await page.selectOption("#expand-mode", "all");
        await page.click("#expand-form button");
        await waitIdle(page);
        await page.screenshot({ path: join(shots, `${name}-3-expanded.png`) });
        expect(await page.locator("#error").isHidden()).toBe(true);
        const counts = await pageCounts(page);
        expect(counts).toMatchObject(cliDiff(file, expanded));
        const expandedInfo = cliInfo(expanded);
        if (expandedInfo.subgraphs === 0) expect(await drawn(page, "b")).toBe(expandedInfo.nodes);
        expect(await markedNodes(page, "b", "added")).toBe(counts.main.added);
        expect(await markedNodes(page, "a", "removed")).toBe(counts.main.removed);

        // run the original and the expansion on seeded random inputs
        await page.selectOption("#run-mode", "random");
        await page.fill("#seed", "7");
        await page.click("#run-form button");
        await waitIdle(page);
        await page.screenshot({ path: join(shots, `${name}-4-run.png`) });
        expect(await page.locator("#error").isHidden()).toBe(true);
        const maxAbs = Number(await page.locator("#run-report").getAttribute("data-max-abs"));
        const expected = nodeMaxAbs(model, loadModel(expanded), 7);
        if (expected === 0) expect(maxAbs).toBe(0);
        else expect(maxAbs).toBeCloseTo(expected, 12);
      }, 180_000);
    }

    /** Opens a file given as bytes; waits until it is drawn or refused. */
    async function openBytes(name: string, bytes: Buffer): Promise<void> {
      await page.goto(srv.url);
      await page.locator("body[data-state=ready]").waitFor();
      await page.setInputFiles("#file", {
        name,
        mimeType: "application/octet-stream",
        buffer: bytes,
      });
      await page.waitForFunction(
        () =>
          document.getElementById("pane-a")?.dataset.drawn !== undefined ||
          !!document.body.dataset.error,
        undefined,
        { timeout: 60_000 },
      );
      await waitIdle(page);
    }

    /** The CLI's one error line for `args` run in `work`, without its "onnx-expand: error: ". */
    function cliError(args: string[]): string {
      const r = runCli(args, { cwd: work });
      expect(r.code, r.stdout).toBe(2);
      return r.stderr.trim().replace(/^onnx-expand: error: /, "");
    }

    it("reads a .txt file as the CLI does: a binary model, not ONNX text", async () => {
      const binary = readFileSync(examples[0]!);
      writeFileSync(join(work, "binary.txt"), binary);
      await openBytes("binary.txt", binary);
      expect(await page.locator("#error").isHidden()).toBe(true);
      const info = runCli(["info", "--json", "binary.txt"], { cwd: work });
      expect(info.code, info.stderr).toBe(0);
      expect(Number(await page.locator("#facts").getAttribute("data-nodes"))).toBe(
        JSON.parse(info.stdout).nodes,
      );

      const text = Buffer.from(runCli(["print", examples[0]!]).stdout);
      writeFileSync(join(work, "text.txt"), text);
      const message = cliError(["info", "text.txt"]);
      await openBytes("text.txt", text);
      expect(await page.locator("#error").textContent()).toBe(`cannot open the file: ${message}`);
    }, 60_000);

    it("refuses to run a model the CLI's run refuses, with the CLI's message", async () => {
      const text = `<ir_version: 8, opset_import: ["" : 12]>
        g (float[2] x) => (float[2] y) { y = Gelu (x) }`;
      writeFileSync(join(work, "gelu-12.onnxtxt"), text);
      const message = cliError(["run", "gelu-12.onnxtxt", "x=json:[1, 2]"]);
      expect(message).toMatch(/^gelu-12\.onnxtxt: .*Gelu/);
      await openBytes("gelu-12.onnxtxt", Buffer.from(text));
      expect(await page.locator("#error").isHidden()).toBe(true);
      await page.selectOption("#run-mode", "random");
      await page.click("#run-form button");
      await waitIdle(page);
      await page.screenshot({ path: join(shots, "run-refused.png") });
      expect(await page.locator("#error").textContent()).toBe(`run: ${message}`);
      expect(await page.locator("#run-report").isHidden()).toBe(true);
    }, 60_000);

    it("shows a readable message for a truncated file", async () => {
      const bytes = readFileSync(examples[0]!);
      await page.goto(srv.url);
      await page.setInputFiles("#file", {
        name: "truncated.onnx",
        mimeType: "application/octet-stream",
        buffer: bytes.subarray(0, Math.floor(bytes.length / 2)),
      });
      await page.waitForFunction(() => !!document.body.dataset.error, undefined, {
        timeout: 60_000,
      });
      await page.screenshot({ path: join(shots, "truncated-error.png") });
      const text = await page.locator("#error").textContent();
      expect(text).toMatch(
        /cannot open the file: truncated\.onnx: not a valid ModelProto: truncated/,
      );
      expect(await page.locator("#error").isVisible()).toBe(true);
    }, 60_000);
  },
);
