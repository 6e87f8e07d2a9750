// A picked file (a Blob) as a source of tensor bytes, read in ranges in the worker: FileReaderSync
// reads `blob.slice(offset, offset + length)` synchronously, as a positioned read does on disk,
// so a model's weights stay in the file until a kernel or the value panel needs them.

import type { ByteSource } from "../src/ir/tensor.js";

interface SyncReader {
  readAsArrayBuffer(blob: Blob): ArrayBuffer;
}
declare const FileReaderSync: { new (): SyncReader } | undefined;

let reader: SyncReader | undefined;

export class BlobSource implements ByteSource {
  readonly size: number;
  readonly key: string;

  constructor(
    readonly blob: Blob,
    readonly name: string,
  ) {
    this.size = blob.size;
    const modified = (blob as File).lastModified ?? 0;
    this.key = `blob:${name}:${blob.size}:${modified}:${(blobIds.get(blob) ?? blobIds.set(blob, ++lastId).get(blob))!}`;
  }

  read(offset: number, length: number): Uint8Array {
    if (typeof FileReaderSync === "undefined")
      throw new Error("reading a file in ranges needs a worker (FileReaderSync)");
    reader ??= new FileReaderSync();
    return new Uint8Array(reader.readAsArrayBuffer(this.blob.slice(offset, offset + length)));
  }
}

/** One number per Blob: the same file picked twice is one source, two files are two. */
const blobIds = new WeakMap<Blob, number>();
let lastId = 0;
