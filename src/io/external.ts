// External data: tensors whose bytes live in files beside the model. A location is resolved
// against the folder of the file that refers to it and refused if it leaves that folder (a
// symbolic link out of it included); the file must be a regular file and the range must lie in
// it. A loaded model's external tensors are given their range of the data file, opened once per
// file (io/file-source.ts): their bytes are read only when something needs the values.

import { lstatSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { OnnxError } from "../errors.js";
import type { ByteRange, Tensor } from "../ir/tensor.js";
import { externalLocation, externalRange } from "./external-range.js";
import { FileSource, OpenFailure } from "./file-source.js";
import { noteTensorFile } from "./tensor-files.js";

export { externalEntry } from "./external-range.js";

/**
 * The path of a tensor's external data file, refusing locations outside the model's folder. The
 * location is appended to the folder as it is written and resolved by the file system (a trailing
 * '/' or an 'a/../' is what opening the file would make of it, not what a lexical resolve would);
 * an existing file is named by its real path, the one that is opened.
 */
export function externalFile(t: Tensor, where?: string): string {
  if (t.data.kind !== "external") throw new Error("not an external tensor");
  const loc = externalLocation(t, where);
  const base = t.data.baseDir ?? process.cwd();
  if (loc === "")
    throw new OnnxError(
      "E_MODEL",
      `tensor '${t.name}' has external data without a location`,
      where,
    );
  const rel = relative(base, resolve(base, loc));
  const escapes = () =>
    new OnnxError(
      "E_MODEL",
      `external data location '${loc}' of tensor '${t.name}' escapes the model's folder`,
      where,
    );
  if (isAbsolute(loc) || rel.startsWith("..") || isAbsolute(rel)) throw escapes();
  const raw = base.endsWith(sep) ? base + loc : base + sep + loc;
  let real: string;
  try {
    real = realpathSync.native(raw);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return raw; // named "does not exist" by whoever opens it
    throw new OnnxError(
      "E_IO",
      `external data file '${loc}' of tensor '${t.name}' cannot be opened: ${code ?? (e as Error).message}`,
      where,
    );
  }
  const realRel = relative(realpathSync.native(base), real);
  if (realRel.startsWith("..") || isAbsolute(realRel)) throw escapes();
  return real;
}

function sameRegularFile(path: string, s: FileSource): boolean {
  try {
    const l = lstatSync(path);
    return l.isFile() && l.dev === s.dev && l.ino === s.ino;
  } catch {
    return false;
  }
}

/** Why a data file could not be opened, with the cause's own words for the usual ones. */
function openFailure(code: string | undefined): string {
  if (code === "EMFILE" || code === "ENFILE")
    return `${code}: too many open files (the model names more data files than the process's descriptor limit allows; raise it with ulimit -n)`;
  return code ?? "unknown cause";
}

/**
 * The data files of one model, each opened once: a location is checked (inside the folder, a
 * regular file) the first time a tensor names it. Every file opened is noted as one that tensors
 * are read from (io/tensor-files.ts), so that no write replaces it.
 */
export class DataFiles {
  private readonly sources = new Map<string, FileSource>();

  /** The file of a tensor's external data, opened. */
  source(t: Tensor, where?: string): FileSource {
    if (t.data.kind !== "external") throw new Error("not an external tensor");
    const key = `${t.data.baseDir ?? ""}\0${externalLocation(t, where)}`;
    let s = this.sources.get(key);
    if (s) return s;
    const file = externalFile(t, where);
    const loc = externalLocation(t);
    let st;
    try {
      st = statSync(file);
    } catch {
      throw new OnnxError(
        "E_IO",
        `external data file '${loc}' of tensor '${t.name}' does not exist`,
        where,
      );
    }
    if (!st.isFile())
      throw new OnnxError(
        "E_IO",
        `external data location '${loc}' of tensor '${t.name}' is not a regular file`,
        where,
      );
    try {
      s = new FileSource(file, loc);
    } catch (e) {
      const cause = e instanceof OpenFailure ? e.errno : undefined;
      throw new OnnxError(
        "E_IO",
        `external data file '${loc}' of tensor '${t.name}' cannot be opened: ${openFailure(cause)}`,
        where,
      );
    }
    // What was opened is what was checked: a regular file at its real path, no link swapped in.
    if (!sameRegularFile(file, s)) {
      s.close();
      throw new OnnxError(
        "E_IO",
        `external data file '${loc}' of tensor '${t.name}' was replaced while it was opened`,
        where,
      );
    }
    noteTensorFile(file, s.dev, s.ino);
    this.sources.set(key, s);
    return s;
  }

  /** The tensor's range of its data file, checked against the file's size. */
  range(t: Tensor, where?: string): ByteRange {
    const source = this.source(t, where);
    return { source, ...externalRange(t, source.size, where) };
  }
}

/**
 * Gives an external tensor the range of its data file (the file opened and the range checked,
 * nothing read). `files` shares the opened files among the tensors of one model.
 */
export function resolveExternalData(t: Tensor, where?: string, files = new DataFiles()): void {
  if (t.data.kind !== "external" || t.data.range) return;
  t.data.range = files.range(t, where);
}

/**
 * Checks a tensor's external data without reading it: the location stays inside the folder of
 * the file that refers to it, names a regular file (not a FIFO, a device or a folder), and the
 * range lies inside that file. Returns the file and the range.
 */
export function checkExternalData(
  t: Tensor,
  where?: string,
): { file: string; offset: number; length: number } {
  const r = new DataFiles().range(t, where);
  return { file: (r.source as FileSource).path, offset: r.offset, length: r.length };
}

/** A tensor's external data, read (the tensor is not changed). */
export function readExternalData(t: Tensor, where?: string): Uint8Array {
  if (t.data.kind !== "external") throw new Error("not an external tensor");
  const r = t.data.range ?? new DataFiles().range(t, where);
  const bytes = r.source.read(r.offset, r.length);
  if (bytes.length !== r.length)
    throw new OnnxError(
      "E_IO",
      `external data of tensor '${t.name}' is past the end of '${externalLocation(t)}' (the file shrank)`,
      where,
    );
  return bytes;
}

/** Replaces a tensor's external reference with its bytes. */
export function loadExternalData(t: Tensor, where?: string): void {
  if (t.data.kind !== "external") return;
  t.data = { kind: "raw", bytes: readExternalData(t, where) };
}
