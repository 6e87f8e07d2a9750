// A Llama-style decoder of 803 MB of float32 weights in the page (the corpus export script's
// `medium` size: hidden 1024, 12 layers, vocabulary 32,000, untied embeddings), in headless
// Chromium: picked with its data file, drawn grouped by layer without reading a weight, a weight's
// values read from its range, Check and Lower for webgpu, and Run at sequence length 8 within the
// page's memory budget, the lowered model agreeing with the original.
// The model is not committed (`npx tsx scripts/corpus/export.ts --llm-size medium --only
// llama_medium_dynamo`): the suite runs when LLM_MEDIUM_DIR (default
// corpus/exported/llama_medium_dynamo) holds it, and is skipped saying why otherwise, or without
// Chromium.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel } from "../../src/io/files.js";
import { readRange } from "../../src/ir/tensor.js";
import {
  findChromium,
  NO_CHROMIUM,
  startPageSession,
  type PageSession,
} from "../helpers/browser.js";

const root = join(import.meta.dirname, "..", "..");
const dir = process.env.LLM_MEDIUM_DIR ?? join(root, "corpus", "exported", "llama_medium_dynamo");
const model = join(dir, "model.onnx");
const data = join(dir, "model.onnx.data");
const chromium = findChromium();
const absent = !existsSync(model) || !existsSync(data);
const why = !chromium
  ? ` (${NO_CHROMIUM})`
  : absent
    ? ` (no ${model} with its data file: export it with scripts/corpus/export.ts --llm-size medium --only llama_medium_dynamo, or set LLM_MEDIUM_DIR; skipped)`
    : "";

async function settled(page: Page): Promise<string> {
  await page.locator("body:not([data-state=busy])").waitFor({ timeout: 600_000 });
  return (await page.locator("#error").isVisible()) ? await page.locator("#error").innerText() : "";
}

type Item = { kind: string; label: string; count?: number; key: string };
const items = (page: Page) =>
  page.evaluate(() =>
    (
      window as unknown as { __inspector: { panes: { a: { items(): Item[] } } } }
    ).__inspector.panes.a.items(),
  ) as Promise<Item[]>;

describe.skipIf(!chromium || absent)(`a 803 MB decoder in the page${why}`, () => {
  let session: PageSession;
  let page: Page;
  beforeAll(async () => {
    session = await startPageSession(chromium!);
    page = session.page;
  }, 120_000);
  afterAll(async () => {
    await session?.close();
  });

  it("picked with its data file: drawn by layer, a weight read from its range", async () => {
    await page.goto(session.srv.url);
    await page.locator("body[data-state=ready]").waitFor();
    await page.setInputFiles("#file", [model, data]);
    await page.locator("#pane-a[data-drawn]").waitFor({ timeout: 300_000 });
    expect(await settled(page)).toBe("");
    expect(await page.locator("#status").textContent()).toBe("Opened model.onnx.");
    expect(await page.locator("#pane-a").getAttribute("data-drawn")).toBe("900");
    // The wrappers (the export's own module, the causal LM around its decoder) are open: the
    // view is the decoder's layers, each one collapsed box of its nodes.
    const groups = (await items(page)).filter((i) => i.kind === "group");
    const layers = groups.filter((g) => /^layers\.\d+$/.test(g.label));
    expect(layers.map((g) => g.label)).toEqual(Array.from({ length: 12 }, (_, l) => `layers.${l}`));
    for (const g of layers) expect(g.count).toBeGreaterThanOrEqual(70);
    expect(groups.map((g) => g.label)).toEqual(expect.arrayContaining(["rotary_emb", "norm"]));

    // Layer 0's query projection (1024×1024, folded by the exporter into `val_102`): its first
    // values are those of its range of the data file.
    const t = loadModel(model).graph.initializers.find((x) => x.name === "val_102")!;
    expect(t.dims).toEqual([1024, 1024]);
    const values = new Float32Array(readRange(t.range!).slice().buffer);
    await page.fill("#find", "val_102");
    await page.keyboard.press("Enter");
    expect(await settled(page)).toBe("");
    const w = page.locator("#details table.value[data-name=val_102]");
    const first = [0, 1, 2].map((i) => String(Number(values[i]!.toPrecision(6))));
    await expect
      .poll(() => w.textContent(), { timeout: 60_000 })
      .toContain(`first${first.join(", ")}`);
  }, 600_000);

  it("Check and Lower for webgpu, then Run at sequence length 8: the two agree", async () => {
    await page.selectOption("#target", "webgpu@2");
    await page.click("#check");
    expect(await settled(page)).toBe("");
    expect(await page.locator("#check-report h3").first().innerText()).toMatch(
      /webgpu@2: \d+ of 900 node\(s\) not supported, \d+ partition\(s\)/,
    );
    await page.fill("#dims", "batch=1,sequence=8");
    await page.click("#lower");
    expect(await settled(page)).toBe("");
    expect(await page.locator("#status").textContent()).toMatch(/lowered for webgpu/);
    expect(Number(await page.locator("#pane-b").getAttribute("data-drawn"))).toBeGreaterThan(0);
    await page.click("#run-form button");
    expect(await settled(page)).toBe("");
    const report = page.locator("#run-report");
    expect(await report.innerText()).toMatch(/input_ids \[1,8\]/);
    expect(await report.innerText()).toMatch(/logits\s+\[1,8,32000\]/);
    const maxAbs = Number(await report.getAttribute("data-max-abs"));
    expect(maxAbs).toBeLessThanOrEqual(1e-4);
  }, 900_000);
});
