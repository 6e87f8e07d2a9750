// Reads traced: with `--trace`, each fuzz worker runs under `strace -f`, which logs every file the
// process opens. After the campaign the logs are read, and every file opened successfully is judged:
// inside the lane's own folder (where the case's model, its data files and its outputs live) but
// not in its `outside` folder (the secret the data-file families plant beside the case), or one of
// the program's own files (the repository, Node, the C library, tsx's compile cache, the few /proc
// and cgroup files Node reads for its heap limit). Anything else is a read outside the model's folder.

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** strace's path, or undefined when it is not installed. */
export function stracePath(): string | undefined {
  try {
    return (
      execFileSync("sh", ["-c", "command -v strace"], { encoding: "utf8" }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** The arguments that put a command under strace, writing its log to `log`. */
export function straceArgs(log: string): string[] {
  return ["-f", "-qq", "-e", "trace=open,openat,openat2", "-o", log];
}

/** Exact files and folder prefixes the program itself reads. */
function ownFiles(): { exact: Set<string>; prefixes: string[] } {
  const node = process.execPath;
  return {
    exact: new Set([
      node,
      "/etc/ld.so.cache",
      "/dev/null",
      "/proc/self/maps",
      "/proc/self/cgroup",
      "/proc/meminfo",
      "/proc/self/mountinfo",
      "/proc/sys/vm/overcommit_memory",
      "/sys/devices/system/cpu/online",
      "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
    ]),
    prefixes: [
      ROOT + sep,
      realpathSync(join(ROOT, "node_modules")) + sep,
      "/etc/ssl/",
      dirname(dirname(node)) + sep + "lib" + sep,
      "/lib/",
      "/lib64/",
      "/usr/lib/",
      "/sys/fs/cgroup/",
      join(tmpdir(), "tsx-"),
    ],
  };
}

/** strace's quoting of a path undone (\\, \", \n, \t, \xNN, octal). */
function unquote(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const d = s[++i]!;
    if (d === "x") {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (/[0-7]/.test(d)) {
      const m = /^[0-7]{1,3}/.exec(s.slice(i))![0];
      bytes.push(parseInt(m, 8));
      i += m.length - 1;
    } else
      bytes.push(
        ({ n: 10, t: 9, r: 13, v: 11, f: 12 } as Record<string, number>)[d] ?? d.charCodeAt(0),
      );
  }
  return Buffer.from(bytes).toString("utf8");
}

const CALL = /^(\d+)\s+(?:open|openat|openat2)\((?:[^,"]*,\s*)?"((?:[^"\\]|\\.)*)"/;
const DONE = /\)\s+=\s+(-?\d+)/;
const RESUMED = /^(\d+)\s+<\.\.\. (?:open|openat|openat2) resumed>.*=\s+(-?\d+)/;

/** Files a log says were opened successfully (relative paths resolved against `cwd`). */
export function openedFiles(log: string, cwd: string): string[] {
  const out: string[] = [];
  const pending = new Map<string, string>();
  for (const line of log.split("\n")) {
    const call = CALL.exec(line);
    if (call) {
      const path = unquote(call[2]!);
      const full = isAbsolute(path) ? path : resolve(cwd, path);
      if (line.includes("<unfinished ...>")) pending.set(call[1]!, full);
      else {
        const r = DONE.exec(line);
        if (r && Number(r[1]) >= 0) out.push(full);
      }
      continue;
    }
    const resumed = RESUMED.exec(line);
    if (resumed) {
      const full = pending.get(resumed[1]!);
      pending.delete(resumed[1]!);
      if (full !== undefined && Number(resumed[2]) >= 0) out.push(full);
    }
  }
  return out;
}

/** Files opened outside the lane folder `lane` (or in its `outside`) that are not the program's. */
export function outsideReads(opened: string[], lane: string): string[] {
  const own = ownFiles();
  const inLane = lane + sep;
  const planted = join(lane, "outside") + sep;
  return opened.filter((p) => {
    if (p.startsWith(planted) || p === join(lane, "outside")) return true;
    if (p.startsWith(inLane) || p === lane) return false;
    if (own.exact.has(p)) return false;
    return !own.prefixes.some((pre) => p.startsWith(pre));
  });
}

/** Every read outside its lane in the logs `<log>.*` of the lanes: the files, once each. */
export function tracedOutsideReads(lanes: { dir: string; log: string }[]): {
  opened: number;
  outside: string[];
} {
  let opened = 0;
  const outside = new Set<string>();
  for (const { dir, log } of lanes) {
    const folder = dirname(log);
    const base = log.slice(folder.length + 1);
    for (const f of readdirSync(folder))
      if (f.startsWith(base + ".")) {
        const files = openedFiles(readFileSync(join(folder, f), "utf8"), dir);
        opened += files.length;
        for (const p of outsideReads(files, dir)) outside.add(p);
      }
  }
  return { opened, outside: [...outside].sort() };
}
