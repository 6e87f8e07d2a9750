// A file as a source of tensor bytes, read in ranges (Node has no mmap): `readSync` at an offset
// on a descriptor opened once. The descriptor is opened when the source is made and held while
// the model needs it, so a data file replaced on disk afterwards (an output renamed over it) is
// still read as it was when the model was loaded. It is closed when the source is garbage
// collected, or by close().

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { OnnxError } from "../errors.js";
import type { ByteSource } from "../ir/tensor.js";

const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    /* closed already */
  }
});

/** Reads made through every FileSource of the process (tests count them). */
export const fileReads = { count: 0, bytes: 0 };

/** A file that could not be opened: the system's error code (ENOENT, EACCES, ...) as a value. */
export class OpenFailure extends OnnxError {
  constructor(
    readonly errno: string | undefined,
    message: string,
    name: string,
  ) {
    super("E_IO", `cannot open: ${errno ?? message}`, name);
  }
}

export class FileSource implements ByteSource {
  readonly size: number;
  readonly key: string;
  /** The file's device and inode (which file it is, whatever its path names later). */
  readonly dev: number;
  readonly ino: number;
  private fd: number | undefined;
  private readonly token = {};

  /** Opens `path` for reading (refused, with one line, unless it is a regular file). */
  constructor(
    readonly path: string,
    readonly name = path,
  ) {
    let fd: number;
    try {
      fd = openSync(path, "r");
    } catch (e) {
      throw new OpenFailure((e as NodeJS.ErrnoException).code, (e as Error).message, name);
    }
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      throw new OnnxError("E_IO", "is not a regular file", name);
    }
    this.fd = fd;
    this.size = st.size;
    this.dev = st.dev;
    this.ino = st.ino;
    this.key = `file:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    closer.register(this, fd, this.token);
  }

  read(offset: number, length: number): Uint8Array {
    const out = new Uint8Array(length);
    const got = this.readInto(out, offset);
    return got < length ? out.subarray(0, got) : out;
  }

  /** Fills `into` from `offset`; returns how many bytes the file had (fewer at its end). */
  readInto(into: Uint8Array, offset: number): number {
    const fd = this.descriptor();
    let got = 0;
    while (got < into.length) {
      const n = readSync(fd, into, got, into.length - got, offset + got);
      if (n <= 0) break;
      got += n;
    }
    fileReads.count++;
    fileReads.bytes += got;
    return got;
  }

  /** The open descriptor (for copying ranges of the file). */
  descriptor(): number {
    if (this.fd === undefined)
      throw new OnnxError("E_IO", "was closed before it was read", this.name);
    return this.fd;
  }

  close(): void {
    if (this.fd === undefined) return;
    closer.unregister(this.token);
    closeSync(this.fd);
    this.fd = undefined;
  }
}
