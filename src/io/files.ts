// Models on disk: .onnx (protobuf) and .onnxtxt (ONNX text syntax), external data, atomic writes.

import { closeSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { OnnxError } from "../errors.js";
import type { Model } from "../ir/types.js";
import { walkTensors } from "../ir/visit.js";
import { decodeModel, encodeModel } from "./codec.js";
import { DataFiles, loadExternalData, resolveExternalData } from "./external.js";
import { FileSource } from "./file-source.js";
import { isTextPath, modelFromBytes } from "./format.js";
import { compactModel, LAZY_FROM, RANGED_FROM } from "./ranged.js";

export { isTextPath } from "./format.js";
export { decodeModel, encodeModel };
export {
  guardTempFiles,
  removeStaleTempFiles,
  writeFileAtomic,
  writeFilesAtomic,
} from "./atomic.js";
export {
  checkExternalData,
  externalEntry,
  externalFile,
  loadExternalData,
  readExternalData,
} from "./external.js";
export { saveModel, type SaveOptions, type SaveReport } from "./save.js";
export { FileSource, fileReads } from "./file-source.js";

/**
 * The bytes of an input file. Folders, devices (/dev/zero never ends) and sockets are refused
 * before anything is read, and so are FIFOs unless `fifoOk` (a pipe given on the command line
 * ends; one found by listing a folder may never be written to).
 */
export function readInputFile(path: string, what = "file", fifoOk = false): Buffer {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new OnnxError("E_IO", "no such file", path);
  }
  if (st.isDirectory()) throw new OnnxError("E_IO", `is a directory, not a ${what}`, path);
  if (st.isFIFO() && !fifoOk)
    throw new OnnxError("E_IO", `is a FIFO (named pipe), not a regular ${what}`, path);
  if (!st.isFile() && !st.isFIFO())
    throw new OnnxError("E_IO", `is a device or socket, not a ${what}`, path);
  try {
    return readFileSync(path);
  } catch (e) {
    throw new OnnxError(
      "E_IO",
      `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      path,
    );
  }
}

/** readInputFile refusing FIFOs too: for files found by listing a folder. */
export function readRegularFile(path: string, what = "file"): Buffer {
  return readInputFile(path, what, false);
}

/** The most bytes a small input file (a profile, an op list) may hold. */
export const SMALL_FILE_LIMIT = 16 << 20;

/**
 * A small text file (a target profile, an op list): a regular file only (a FIFO may never be
 * written to, /dev/zero never ends, a folder is no file) of at most `limit` bytes, the opened
 * descriptor checked again, and no more read than its size (a file that grows meanwhile is refused).
 */
export function readSmallTextFile(path: string, what: string, limit = SMALL_FILE_LIMIT): string {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new OnnxError("E_IO", `no such ${what}`, path);
  }
  if (st.isDirectory()) throw new OnnxError("E_IO", `is a directory, not a ${what}`, path);
  if (!st.isFile())
    throw new OnnxError(
      "E_IO",
      `is a ${st.isFIFO() ? "FIFO (named pipe)" : "device or socket"}, not a regular ${what}`,
      path,
    );
  const tooLarge = () =>
    new OnnxError("E_IO", `is larger than ${limit} bytes, too large for a ${what}`, path);
  if (st.size > limit) throw tooLarge();
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    // The path may have been replaced since: the opened file must be a regular file too.
    if (!fstatSync(fd).isFile()) throw new OnnxError("E_IO", `is not a regular ${what}`, path);
    // One byte more than its size: a file that grew since is refused rather than cut.
    const buf = Buffer.alloc(st.size + 1);
    let off = 0;
    for (let n; off < buf.length && (n = readSync(fd, buf, off, buf.length - off, null)) > 0;)
      off += n;
    if (off > st.size) throw new OnnxError("E_IO", `grew while it was read`, path);
    return buf.toString("utf8", 0, off);
  } catch (e) {
    if (e instanceof OnnxError) throw e;
    throw new OnnxError(
      "E_IO",
      `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      path,
    );
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export interface LoadOptions {
  /** Read external tensor data into memory now (default: keep references, check the files exist). */
  loadExternal?: boolean;
  /** Read files of this many bytes or more in ranges (default RANGED_FROM). */
  rangedFrom?: number;
  /** In a file read in ranges, leave raw data of this many bytes or more in the file (default LAZY_FROM). */
  lazyFrom?: number;
  /** Force a format instead of going by the extension (.onnxtxt is text, anything else binary). */
  format?: "binary" | "text";
  /** Refuse anything but a regular file (a FIFO too), as for files found by listing a folder. */
  regularFileOnly?: boolean;
}

export { LAZY_FROM, RANGED_FROM } from "./ranged.js";

/** Loads a .onnx or .onnxtxt file. External tensors get the range of their data file (not read). */
export function loadModel(path: string, opts: LoadOptions = {}): Model {
  const text = opts.format === "text" || (opts.format === undefined && isTextPath(path));
  const baseDir = dirname(resolve(path));
  // Decoding counts the tensors whose data is external; a model parsed from text is walked.
  const found = { external: -1 };
  let model: Model;
  if (!text && rangedFile(path, opts)) {
    const source = new FileSource(path);
    const compact = compactModel(source, opts.lazyFrom ?? LAZY_FROM, path);
    model = decodeModel(compact.bytes, { baseDir, where: path, found, holes: compact.holes });
  } else {
    const buf = readInputFile(path, "model file", !opts.regularFileOnly);
    model = modelFromBytes(buf, path, {
      ...(opts.format ? { format: opts.format } : {}),
      decode: { baseDir, found },
    });
  }
  if (found.external === 0) return model;
  const files = new DataFiles();
  for (const t of walkTensors(model)) {
    if (t.data.kind !== "external") continue;
    t.data.baseDir ??= baseDir;
    resolveExternalData(t, path, files);
    if (opts.loadExternal) loadExternalData(t, path);
  }
  return model;
}

/** Whether a model file is read in ranges: a regular file of RANGED_FROM bytes or more. */
function rangedFile(path: string, opts: LoadOptions): boolean {
  let st;
  try {
    st = statSync(path);
  } catch {
    return false; // readInputFile names the error
  }
  return st.isFile() && st.size >= (opts.rangedFrom ?? RANGED_FROM);
}
