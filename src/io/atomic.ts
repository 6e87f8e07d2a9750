// All-or-nothing writes: each file goes to a temporary file in its folder and is renamed into
// place when complete. A temporary file is named `.oe<pid>.<random>.tmp`, so the process that owns
// it can be told from its name: the first write into a folder removes those of processes that no
// longer exist (a process killed with SIGKILL cannot clean up after itself).
//
// Ctrl-C: a JavaScript signal handler runs only when the event loop is free, and encoding a large
// model holds it for seconds. So the CLI installs no handler (SIGINT ends the process at once) and
// instead hands the name of each temporary file, before creating it, to a janitor: a small child
// process in a session of its own that reads names on a pipe and, when the pipe closes (the
// owner has ended, however), removes those not yet renamed or removed. Writing to a pipe does not
// need the event loop, so a busy thread registers its files as it goes.

import { spawn, type ChildProcess } from "node:child_process";
import {
  closeSync,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { OnnxError } from "../errors.js";
import { tensorFileAt } from "./tensor-files.js";

/** The name of a temporary file, and the pid that owns it. */
const TEMP_NAME = /^\.oe(\d+)\.[0-9a-z]+\.tmp$/;

// The janitor's whole program, a POSIX shell script (a shell starts in a millisecond and a few
// hundred kilobytes; a second Node process would cost each command tens of milliseconds of CPU):
// "+name" on a line registers a file, "-name" forgets it; at the end of input the files still
// registered are removed. Names come encoded (see encodeName): no blanks, newlines or glob
// characters, and printf %b gives back their bytes. Signals are ignored (Ctrl-C reaches a whole
// process group; the janitor must outlive its owner). A few files at most are registered at once.
const JANITOR = `trap "" INT TERM HUP QUIT
set -f
live=
while IFS= read -r m; do
  e=\${m#?}
  case \$m in
    +*) live="\$live \$e" ;;
    -*) rest=; for x in \$live; do [ "\$x" = "\$e" ] || rest="\$rest \$x"; done; live=\$rest ;;
  esac
done
for x in \$live; do rm -f -- "\$(printf %b "\$x")"; done`;

/** A path for the janitor: its UTF-8 bytes, each outside [A-Za-z0-9._/-] as an octal escape. */
function encodeName(path: string): string {
  let out = "";
  for (const b of Buffer.from(path, "utf8"))
    out += SAFE_BYTE.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `\\0${b.toString(8).padStart(3, "0")}`;
  return out;
}
const SAFE_BYTE = /^[A-Za-z0-9._/-]$/;

let guard = false;
let janitor: ChildProcess | undefined;

/**
 * Hands every temporary file of this thread to a janitor process that removes it if the thread's
 * process ends before the file is renamed into place (Ctrl-C, SIGTERM, SIGKILL, a crash). The CLI
 * turns this on; a library caller may too. With `startNow`, the janitor starts at once instead
 * of at the first write: starting a process copies the page tables of this one, a few
 * milliseconds at start-up but 10 to 180 ms measured once a model of 100,000 nodes is in memory.
 */
export function guardTempFiles(on = true, startNow = false): void {
  guard = on && process.platform !== "win32";
  if (guard && startNow) startJanitor();
}

/** The janitor, started if it is not yet; undefined (and guarding off) when it cannot start. */
function startJanitor(): ChildProcess | undefined {
  if (!janitor) {
    try {
      janitor = spawn("/bin/sh", ["-c", JANITOR], {
        stdio: ["pipe", "ignore", "ignore"],
        detached: true,
        cwd: "/",
        env: {},
      });
    } catch {
      guard = false;
      return;
    }
    janitor.on("error", () => {
      janitor = undefined;
      guard = false;
    });
    janitor.stdin!.on("error", () => {});
    janitor.unref();
    (janitor.stdin as unknown as { unref?: () => void }).unref?.();
  }
  return janitor;
}

/** Registers (+) or forgets (-) a temporary file with the janitor. */
function tellJanitor(op: "+" | "-", path: string): void {
  if (!guard) return;
  startJanitor()?.stdin!.write(`${op}${encodeName(path)}\n`);
}

/** Whether a process with this id exists (one we may not signal exists too). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

const swept = new Set<string>();

/**
 * Removes the temporary files in `dir` whose owning process no longer exists, once per folder
 * and process. Returns the names removed.
 */
export function removeStaleTempFiles(dir: string): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const path = join(dir, name);
    try {
      if (!lstatSync(path).isFile()) continue;
      unlinkSync(path);
      removed.push(name);
    } catch {
      /* gone already, or not ours to remove */
    }
  }
  return removed;
}

function sweepOnce(dir: string): void {
  if (swept.has(dir)) return;
  swept.add(dir);
  removeStaleTempFiles(dir);
}

/**
 * What may stand at an output path: nothing, a regular file, or a symbolic link (which is
 * replaced by the new file; its target is not touched). A folder, a device, a FIFO or a socket
 * is refused: renaming over a device node would replace it with a regular file.
 */
function checkOutputPath(path: string): void {
  const dir = dirname(resolve(path));
  if (!existsSync(dir)) throw new OnnxError("E_IO", "output folder does not exist", path);
  let st;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (st.isSymbolicLink()) {
    if (existsSync(path) && statSync(path).isDirectory())
      throw new OnnxError("E_IO", "is a directory", path);
    return;
  }
  if (st.isDirectory()) throw new OnnxError("E_IO", "is a directory", path);
  if (!st.isFile()) {
    const kind = st.isFIFO()
      ? "a FIFO (named pipe)"
      : st.isSocket()
        ? "a socket"
        : st.isCharacterDevice() || st.isBlockDevice()
          ? "a device"
          : "not a regular file";
    throw new OnnxError(
      "E_IO",
      `output exists and is ${kind}; only a regular file (or a symbolic link) is replaced`,
      path,
    );
  }
}

/**
 * Refuses to write `path` where it is a file that tensors are read from (io/tensor-files.ts):
 * named with both files, whatever `--force` says.
 */
function checkNotTensorFile(path: string, readFrom: string[]): void {
  const file = tensorFileAt(path, readFrom);
  if (file === undefined) return;
  throw new OnnxError(
    "E_USAGE",
    `would write over '${file}', a data file that tensors of the input are read from: refused (choose another output name; --force does not apply)`,
    path,
  );
}

/** Writes through a temporary file in the same folder, renamed into place only when complete. */
export function writeFileAtomic(path: string, write: (fd: number) => void): void {
  writeFilesAtomic([{ path, write }]);
}

/**
 * Writes several files all or nothing: each goes to a temporary file in its folder, and only when
 * every one is complete are they renamed into place; on any failure the temporary files are
 * removed and no target is touched. Temporary names are short (a name near the 255-byte limit
 * still has room).
 */
export function writeFilesAtomic(
  files: {
    path: string;
    /** Writes the file; `false`: there is nothing to write after all (the file is not made). */
    write: (fd: number) => void | false;
    /** A file that may turn out not to be written: its path is checked only if it is. */
    optional?: boolean;
  }[],
  /** More files tensors are read from, besides those the loaders noted. */
  readFrom: string[] = [],
): void {
  for (const { path, optional } of files)
    if (!optional) {
      checkOutputPath(path);
      checkNotTensorFile(path, readFrom);
    }
  for (const { path } of files) sweepOnce(dirname(resolve(path)));
  const tmps: string[] = [];
  let current = files[0]?.path;
  try {
    const discard = new Set<string>();
    for (const { path, write, optional } of files) {
      current = path;
      const tmp = join(
        dirname(resolve(path)),
        `.oe${process.pid}.${Math.random().toString(36).slice(2, 10) || "0"}.tmp`,
      );
      tellJanitor("+", tmp);
      let fd: number;
      try {
        fd = openSync(tmp, "wx");
      } catch (e) {
        tellJanitor("-", tmp);
        throw e;
      }
      tmps.push(tmp);
      let written: void | false;
      try {
        written = write(fd);
      } finally {
        closeSync(fd);
      }
      if (written === false) discard.add(tmp);
      else if (optional) {
        checkOutputPath(path);
        checkNotTensorFile(path, readFrom);
      }
    }
    files.forEach(({ path }, i) => {
      current = path;
      const tmp = tmps[i]!;
      if (discard.has(tmp)) unlinkSync(tmp);
      else renameSync(tmp, path);
      tellJanitor("-", tmp);
    });
  } catch (e) {
    for (const tmp of tmps) {
      try {
        unlinkSync(tmp);
      } catch {
        /* already renamed or gone */
      }
      tellJanitor("-", tmp);
    }
    if (e instanceof OnnxError) throw e;
    throw new OnnxError(
      "E_IO",
      `cannot write: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      current,
    );
  }
}
