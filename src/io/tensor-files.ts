// The files tensors are read from, never written: every external data file a model or tensor file
// of this process names is noted when it is opened (io/external.ts), and every write (io/atomic.ts)
// refuses a path that is one of them, whatever `--force` says. A path matches a noted file when it
// names the same file (device and inode: a symbolic or hard link to it included), or, for a file
// not there (yet or any more), when it resolves to the same place (the folder's real path and the
// name). Renaming an output over a data file would leave its model reading other bytes, and the
// tensors being copied into the output are read from these files while it is written.

import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

interface Noted {
  /** The path as the model resolved it (for messages). */
  path: string;
  /** Its real path when it was opened. */
  real: string;
  dev: number;
  ino: number;
}

/** By device and inode. */
const noted = new Map<string, Noted>();

/** The real path a write to `path` lands on: the file's, else its folder's and the name. */
function landsOn(path: string): string {
  const abs = resolve(path);
  try {
    return realpathSync.native(abs);
  } catch {
    try {
      return join(realpathSync.native(dirname(abs)), basename(abs));
    } catch {
      return abs;
    }
  }
}

/** Notes a file that tensors are read from (opened, with its device and inode). */
export function noteTensorFile(path: string, dev: number, ino: number): void {
  const key = `${dev}:${ino}`;
  if (noted.has(key)) return;
  noted.set(key, { path: resolve(path), real: landsOn(path), dev, ino });
}

/** Whether a noted file is still the one at its real path (its inode not freed and reused). */
function stillThere(n: Noted): boolean {
  try {
    const st = statSync(n.real);
    return st.dev === n.dev && st.ino === n.ino;
  } catch {
    return false;
  }
}

/**
 * The noted file (its path) that writing `path` would replace, if any; `also`: more files read
 * from, compared the same way (an output's own external tensors that no loader opened).
 */
export function tensorFileAt(path: string, also: string[] = []): string | undefined {
  let st: { dev: number; ino: number } | undefined;
  try {
    st = statSync(path);
  } catch {
    st = undefined;
  }
  const target = landsOn(path);
  if (st) {
    const hit = noted.get(`${st.dev}:${st.ino}`);
    if (hit && stillThere(hit)) return hit.path;
  }
  for (const n of noted.values()) if (n.real === target) return n.path;
  for (const a of also) {
    if (landsOn(a) === target) return resolve(a);
    if (st)
      try {
        const sa = statSync(a);
        if (sa.dev === st.dev && sa.ino === st.ino) return resolve(a);
      } catch {
        /* not there: compared by path above */
      }
  }
  return undefined;
}

/** Forgets every noted file (tests). */
export function forgetTensorFiles(): void {
  noted.clear();
}
