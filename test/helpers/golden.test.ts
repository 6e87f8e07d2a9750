// The golden-file helper: compares, never creates a file unless asked to update.

import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { expectGolden, GOLDEN_UPDATE } from "./golden.js";

describe("expectGolden", () => {
  const dir = mkdtempSync(join(tmpdir(), "golden-"));
  afterEach(() => vi.unstubAllEnvs());

  it("fails on a missing file, naming the refresh command, and writes nothing", () => {
    vi.stubEnv("UPDATE_GOLDEN", "");
    const path = join(dir, "missing.onnxtxt");
    expect(() => expectGolden(path, "text")).toThrow(GOLDEN_UPDATE);
    expect(existsSync(path)).toBe(false);
  });

  it("compares with the file", () => {
    vi.stubEnv("UPDATE_GOLDEN", "");
    const path = join(dir, "same.onnxtxt");
    writeFileSync(path, "text");
    expectGolden(path, "text");
    expect(() => expectGolden(path, "other")).toThrow(GOLDEN_UPDATE);
    expect(readFileSync(path, "utf8")).toBe("text");
  });

  it("writes the file when updating", () => {
    vi.stubEnv("UPDATE_GOLDEN", "1");
    const path = join(dir, "new.onnxtxt");
    expectGolden(path, "fresh");
    expect(readFileSync(path, "utf8")).toBe("fresh");
  });
});
