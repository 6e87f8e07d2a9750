// Saving a model: the placement of its tensors (io/placement.ts: inline, a reference kept, or a
// data file beside the output, under docs/semantics.md's "Models of any size"), then the model
// and its data file written together, atomically, with tensor bytes streamed from wherever they
// are (memory, a range of the input file, a data file) to the output in chunks.

import {
  constants,
  copyFileSync,
  existsSync,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  statSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { OnnxError } from "../errors.js";
import { Tensor, type ByteRange, type ByteSource } from "../ir/tensor.js";
import type { Model } from "../ir/types.js";
import { isRangePiece, type Piece } from "../proto/writer.js";
import { walkTensors } from "../ir/visit.js";
import { writeFilesAtomic } from "./atomic.js";
import {
  DEFAULT_THRESHOLD,
  savedForm,
  type Layout,
  type PlaceOptions,
  type SavedForm,
} from "./placement.js";
import { externalFile } from "./external.js";
import { FileSource } from "./file-source.js";
import { isTextPath } from "./format.js";

/** Chunks of a range copied from its source to the output. */
const COPY_CHUNK = 8 << 20;

export interface SaveOptions {
  /** Allow the output to replace the input file. */
  force?: boolean;
  /** The path the model was loaded from; saving onto it needs `force`. */
  inputPath?: string;
  /**
   * Write every tensor of at least `threshold` bytes (default: `sizeThreshold`, else 1024) into
   * this file beside the model (a plain file name).
   */
  externalData?: { location: string; threshold?: number };
  /** Every tensor inline; refused when the model would reach protobuf's 2 GiB limit. */
  inlineData?: boolean;
  /** The smallest tensor (bytes) written to a data file by the rules above (default 1024). */
  sizeThreshold?: number;
  /** For text output: omit large initializer data. */
  initializers?: boolean;
  /** Testing: the size limit of one protobuf (default: protobuf's 2 GiB). */
  limit?: number;
}

/** What a save wrote. */
export interface SaveReport {
  /** Bytes of the model file. */
  modelBytes: number;
  /** The data file written, with its size and the number of tensors in it. */
  data?: { path: string; bytes: number; tensors: number };
  /** Tensors left referring to data files that were already there. */
  kept: number;
}

function samePath(a: string, b: string): boolean {
  const ra = resolve(a);
  const rb = resolve(b);
  if (ra === rb) return true;
  try {
    const sa = statSync(ra);
    const sb = statSync(rb);
    return sa.ino === sb.ino && sa.dev === sb.dev;
  } catch {
    return false;
  }
}

/** Saves a model as .onnx or (by extension) .onnxtxt, atomically, under the rules above. */
export function saveModel(model: Model, path: string, opts: SaveOptions = {}): SaveReport {
  if (opts.inputPath && !opts.force && samePath(opts.inputPath, path))
    throw new OnnxError("E_USAGE", "output would overwrite the input (use --force to allow)", path);
  if (opts.inlineData && opts.externalData)
    throw new OnnxError(
      "E_USAGE",
      "inline data and an external data file exclude each other",
      path,
    );
  const outDir = dirname(resolve(path));
  const explicit = opts.externalData;
  const dataName = explicit?.location ?? `${basename(path)}.data`;
  if (dataName.trim() === "")
    throw new OnnxError("E_USAGE", "the external data file needs a name, not ''", path);
  if (dataName.includes("/") || dataName.includes(sep) || dataName === ".." || dataName === ".")
    throw new OnnxError(
      "E_USAGE",
      `external data location '${dataName}' must be a plain file name`,
      path,
    );
  const dataPath = join(outDir, dataName);
  if (samePath(dataPath, path))
    throw new OnnxError(
      "E_USAGE",
      `external data file '${dataName}' cannot be the output model itself`,
      path,
    );
  if (opts.inputPath && !opts.force && samePath(opts.inputPath, dataPath))
    throw new OnnxError(
      "E_USAGE",
      `external data file '${dataName}' would overwrite the input (use --force to allow)`,
      path,
    );
  // A data file that tensors are read from is never written (io/tensor-files.ts): those the
  // loaders opened are noted; the output's own external tensors that none opened are added here.
  const readFrom: string[] = [];
  for (const t of walkTensors(model)) {
    if (t.data.kind !== "external") continue;
    try {
      readFrom.push(
        t.data.range?.source instanceof FileSource ? t.data.range.source.path : externalFile(t),
      );
    } catch {
      /* a location refused: the placement names it */
    }
  }
  const place: PlaceOptions = {
    dataName,
    ...(explicit ? { external: true } : {}),
    ...(opts.inlineData ? { inline: true } : {}),
    threshold: explicit?.threshold ?? opts.sizeThreshold ?? DEFAULT_THRESHOLD,
    keeps: (t) => t.data.kind === "external" && resolve(t.data.baseDir ?? outDir) === outDir,
    ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    copiesWhole,
  };

  // Made while the data file's temporary file is open (made whether or not a tensor goes to it):
  // an error or Ctrl-C during the encoding then removes it, and nothing else was touched.
  let form: SavedForm | undefined;
  writeFilesAtomic(
    [
      {
        path: dataPath,
        optional: true,
        write: (fd) => {
          const format = isTextPath(path) ? "text" : "binary";
          form = savedForm(model, format, place, path, opts.initializers ?? true);
          return writeData(fd, form.layout);
        },
      },
      { path, write: (fd) => writePieces(fd, form!.pieces) },
    ],
    readFrom,
  );
  return report(form!.layout, dataPath, form!.size);
}

function report(layout: Layout | undefined, dataPath: string, modelBytes: number): SaveReport {
  if (!layout) return { modelBytes, kept: 0 };
  return {
    modelBytes,
    kept: layout.kept,
    ...(layout.items.length
      ? { data: { path: dataPath, bytes: layout.dataBytes, tensors: layout.items.length } }
      : {}),
  };
}

/** Writes the data file of a layout; false when no tensor goes to it. */
function writeData(fd: number, layout: Layout | undefined): false | void {
  if (!layout || layout.items.length === 0) return false;
  const out = new Sink(fd);
  for (const item of layout.items) {
    if (item.whole) {
      out.whole((item.bytes as ByteRange).source as FileSource);
      continue;
    }
    out.skip(item.at - out.pos); // alignment padding: a hole, read as zeros
    out.piece(item.bytes);
  }
  out.end();
}

export function writeAll(fd: number, c: Uint8Array): void {
  let off = 0;
  while (off < c.length) off += writeSync(fd, c, off, Math.min(c.length - off, MAX_WRITE));
}

/** The most bytes one write is given: Node refuses a length of 2 GiB or more (ERR_OUT_OF_RANGE). */
const MAX_WRITE = 1 << 30;

/**
 * Writes a model's pieces to `fd`, one write each (not writev: measured here, one writevSync of
 * 230 pieces of 1 MiB took 3.7 s where 230 writeSync calls took 64-148 ms), ranges copied from
 * their source in chunks.
 */
export function writePieces(fd: number, pieces: Piece[]): void {
  const out = new Sink(fd);
  for (const piece of pieces) out.piece(piece);
  out.end();
}

let copyBuffer: Uint8Array | undefined;

/**
 * An output file written front to back at positions of its own. A chunk of a range that is all
 * zeros is not written but skipped (a hole, as `cp --sparse=auto` leaves): a sparse input stays
 * sparse, and real data pays one look at its first bytes.
 */
class Sink {
  pos = 0;
  private holeAtEnd = false;
  constructor(private readonly fd: number) {}

  skip(n: number): void {
    if (n <= 0) return;
    this.pos += n;
    this.holeAtEnd = true;
  }

  write(b: Uint8Array): void {
    let off = 0;
    while (off < b.length)
      off += writeSync(this.fd, b, off, Math.min(b.length - off, MAX_WRITE), this.pos + off);
    this.pos += b.length;
    if (b.length) this.holeAtEnd = false;
  }

  /** Bytes, or a range copied a chunk at a time through one buffer. */
  piece(p: Uint8Array | ByteRange | Piece): void {
    if (!isRangePiece(p as Piece)) return this.write(p as Uint8Array);
    const r = p as ByteRange;
    const source = r.source;
    const buf = (copyBuffer ??= new Uint8Array(COPY_CHUNK));
    for (let at = 0; at < r.length;) {
      const n = Math.min(COPY_CHUNK, r.length - at);
      const chunk = buf.subarray(0, n);
      const got =
        source instanceof FileSource
          ? source.readInto(chunk, r.offset + at)
          : copyInto(chunk, source.read(r.offset + at, n));
      if (got !== n)
        throw new OnnxError(
          "E_IO",
          `'${source.name}' ended early: ${r.offset + at + got} bytes where ${r.offset + r.length} were expected (it changed while being read)`,
        );
      if (allZero(chunk)) this.skip(n);
      else this.write(chunk);
      at += n;
    }
  }

  /**
   * A whole file copied to the start of this one by the kernel (a reflink where the file system
   * has them, else copy_file_range or sendfile: no byte passes through this process), through the
   * two open descriptors, so that the file copied is the one the model was loaded from.
   */
  whole(source: FileSource): void {
    const mode = fstatSync(this.fd).mode & 0o7777;
    copyFileSync(
      `/proc/self/fd/${source.descriptor()}`,
      `/proc/self/fd/${this.fd}`,
      constants.COPYFILE_FICLONE,
    );
    fchmodSync(this.fd, mode); // the copy took the source's permissions
    const size = fstatSync(this.fd).size;
    if (size < source.size)
      throw new OnnxError(
        "E_IO",
        `'${source.name}' ended early: ${size} bytes where ${source.size} were expected (it changed while being read)`,
      );
    if (size > source.size) ftruncateSync(this.fd, source.size);
    this.pos = source.size;
    this.holeAtEnd = false;
  }

  /** Gives the file its full length when it ends in a hole. */
  end(): void {
    if (this.holeAtEnd) ftruncateSync(this.fd, this.pos);
  }
}

/**
 * Whether the writer copies a source whole with the kernel: a data file on Linux (the copy goes
 * through /proc/self/fd) that is not sparse (a sparse file is copied a chunk at a time, its holes
 * skipped, so that its copy stays sparse).
 */
function copiesWhole(s: ByteSource): boolean {
  if (!(s instanceof FileSource) || !procFd()) return false;
  try {
    const st = fstatSync(s.descriptor());
    return st.blocks * 512 >= 0.9 * st.size;
  } catch {
    return false;
  }
}

let procFdOk: boolean | undefined;
function procFd(): boolean {
  return (procFdOk ??= process.platform === "linux" && existsSync("/proc/self/fd"));
}

let zeros: Uint8Array | undefined;

/** Whether a chunk is all zeros (a native compare: ~10x a JavaScript loop over words). */
function allZero(b: Uint8Array): boolean {
  if (b.length === 0 || b[0] !== 0) return false;
  zeros ??= new Uint8Array(COPY_CHUNK);
  return Buffer.compare(b, zeros.subarray(0, b.length)) === 0;
}

function copyInto(into: Uint8Array, from: Uint8Array): number {
  into.set(from.subarray(0, into.length));
  return from.length;
}
