// Special output paths for fuzzing the commands that write a model (-o): what stands at the
// output before the command runs (a FIFO, a device node, a folder, symbolic links to a file, to a
// folder or to nothing), and the judgement after it: a FIFO, a device or a folder must still be
// there, untouched; a link's target must not change; no temporary file may be left behind.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Random } from "../../src/interp/random.js";

export const OUTPUT_KINDS = [
  "none",
  "regular",
  "fifo",
  "device",
  "folder",
  "link-to-file",
  "link-to-folder",
  "dangling-link",
] as const;
export type OutputKind = (typeof OUTPUT_KINDS)[number];

let canMknod: boolean | undefined;

/** Sets up `kind` at `path` (in folder `dir`); returns the kind set up (a device may not be). */
export function prepareOutput(dir: string, path: string, kind: OutputKind): OutputKind {
  for (const p of [path, join(dir, "target"), join(dir, "target-dir")])
    rmSync(p, { recursive: true, force: true });
  switch (kind) {
    case "none":
      return kind;
    case "regular":
      writeFileSync(path, "old");
      return kind;
    case "fifo":
      return spawnSync("mkfifo", [path]).status === 0 ? kind : "none";
    case "device":
      canMknod ??= spawnSync("mknod", [join(dir, "probe"), "c", "1", "3"]).status === 0;
      rmSync(join(dir, "probe"), { force: true });
      return canMknod && spawnSync("mknod", [path, "c", "1", "3"]).status === 0 ? kind : "none";
    case "folder":
      mkdirSync(path);
      return kind;
    case "link-to-file":
      writeFileSync(join(dir, "target"), "target");
      symlinkSync("target", path);
      return kind;
    case "link-to-folder":
      mkdirSync(join(dir, "target-dir"));
      symlinkSync("target-dir", path);
      return kind;
    case "dangling-link":
      symlinkSync("nowhere", path);
      return kind;
  }
}

/** Picks what stands at the output: mostly nothing, a special path one time in three. */
export function pickOutputKind(rng: Random): OutputKind {
  return rng.chance(2 / 3) ? "none" : rng.pick(OUTPUT_KINDS.slice(1));
}

/** What went wrong at the output path, if anything, once the command ended with `code`. */
export function judgeOutput(
  dir: string,
  path: string,
  kind: OutputKind,
  code: number,
): string | undefined {
  const left = readdirSync(dir).filter((f) => /^\.oe\d+\.[0-9a-z]+\.tmp$/.test(f));
  if (left.length) return `temporary file left behind: ${left[0]}`;
  let st;
  try {
    st = lstatSync(path);
  } catch {
    st = undefined;
  }
  const was = (ok: boolean, what: string) => (ok ? undefined : `${kind} output was ${what}`);
  switch (kind) {
    case "fifo":
      return was(!!st?.isFIFO(), "replaced");
    case "device":
      return was(!!st?.isCharacterDevice(), "replaced");
    case "folder":
      return was(!!st?.isDirectory(), "replaced");
    case "link-to-folder":
      return was(!!st?.isSymbolicLink() && existsSync(join(dir, "target-dir")), "replaced");
    case "link-to-file":
      if (readFileSync(join(dir, "target"), "utf8") !== "target")
        return "the target of a symbolic link output was written through the link";
      return was(code !== 0 || !!st?.isFile(), "kept as a link after a successful write");
    case "dangling-link":
      return was(code !== 0 || !!st?.isFile(), "kept as a link after a successful write");
    case "regular":
      return was(code === 0 || readFileSync(path, "utf8") === "old", "changed by a failed command");
    default:
      return undefined;
  }
}
