// Reads traced (scripts/fuzz/trace.ts): strace's log is read into the files opened, and a file
// outside the case's folder, or in the `outside` folder planted beside the case, is counted; a
// short traced campaign of the data-file swaps (links to the planted secret, FIFOs, folders)
// opens nothing outside.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCampaign } from "../../scripts/fuzz/campaign.js";
import { openedFiles, outsideReads, stracePath } from "../../scripts/fuzz/trace.js";

const lane = "/tmp/onnx-expand-fuzz-abc";
const log = [
  `101 openat(AT_FDCWD, "${lane}/case/model.onnx", O_RDONLY|O_CLOEXEC) = 21`,
  `101 openat(AT_FDCWD, "case/data.bin", O_RDONLY|O_NOFOLLOW) = 22`,
  `101 openat(AT_FDCWD, "${lane}/outside/secret.bin", O_RDONLY <unfinished ...>`,
  `102 openat(AT_FDCWD, "/etc/passwd", O_RDONLY) = -1 EACCES (Permission denied)`,
  `101 <... openat resumed>) = 23`,
  `102 openat(AT_FDCWD, "/etc/sh\\x61dow", O_RDONLY) = 24`,
  `102 openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3`,
  `102 open("/home/me/notes.txt", O_RDONLY) = 5`,
].join("\n");

describe("traced reads", () => {
  it("counts the files opened outside the case's folder, and none of the program's own", () => {
    const opened = openedFiles(log, lane);
    expect(opened).toEqual([
      `${lane}/case/model.onnx`,
      `${lane}/case/data.bin`,
      `${lane}/outside/secret.bin`,
      "/etc/shadow",
      "/etc/ld.so.cache",
      "/home/me/notes.txt",
    ]);
    expect(outsideReads(opened, lane)).toEqual([
      `${lane}/outside/secret.bin`,
      "/etc/shadow",
      "/home/me/notes.txt",
    ]);
  });

  it.skipIf(!stracePath())(
    "a traced campaign of swapped data files opens nothing outside",
    async () => {
      const s = await runCampaign({
        command: "convert",
        generator: "swaps",
        count: 8,
        seed: 5,
        jobs: 1,
        trace: true,
        keepDir: mkdtempSync(join(tmpdir(), "onnx-expand-traced-kept-")),
      });
      expect(s.findings).toEqual([]);
      expect(s.traced!.opened).toBeGreaterThan(8);
      expect(s.traced!.outside).toEqual([]);
    },
    240_000,
  );
});
