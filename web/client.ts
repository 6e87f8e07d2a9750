// The page's side of the worker: typed requests (protocol.ts), progress messages, and Cancel, which
// terminates the worker (whatever it is computing) and starts a fresh one.

import type { Answers, ArgsOf, CheckSide, Envelope, Op, Reply } from "./protocol.js";

export class WorkError extends Error {
  constructor(
    message: string,
    readonly notes: string[] = [],
    /** A refused transform's lines with the original's nodes they name. */
    readonly marked?: CheckSide,
  ) {
    super(message);
  }
}

/** What a request cut short by Cancel rejects with. */
export class Cancelled extends Error {
  constructor() {
    super("cancelled");
  }
}

const parse = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

export class WorkerClient {
  private worker!: Worker;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    {
      resolve: (v: Answers[Op]) => void;
      reject: (e: Error) => void;
      /** Slices of a result's arrays received so far. */
      parts?: Record<string, unknown[]>;
    }
  >();

  constructor(
    private readonly url: URL,
    private readonly onProgress: (text: string) => void,
  ) {
    this.start();
  }

  private start(): void {
    const w = new Worker(this.url, { type: "module" });
    w.onmessage = (ev: MessageEvent<Reply>) => {
      const m = ev.data;
      if ("progress" in m) {
        this.onProgress(m.progress);
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      if ("part" in m) {
        const list = ((p.parts ??= {})[m.part] ??= []);
        for (const x of parse(m.json) as unknown[]) list.push(x);
        return;
      }
      this.pending.delete(m.id);
      if (!m.ok) p.reject(new WorkError(m.error, m.notes, m.marked));
      else if ("json" in m) p.resolve({ ...(parse(m.json) as object), ...p.parts } as Answers[Op]);
      else p.resolve(m.result);
    };
    w.onerror = (ev) => {
      ev.preventDefault();
      this.failAll(new WorkError(`the worker failed: ${ev.message || "it could not start"}`));
    };
    this.worker = w;
  }

  private failAll(e: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(e);
  }

  /** Sends a request; the answer is typed by the request's op. */
  ask<K extends Op>(op: K, args: ArgsOf<K>, transfer: Transferable[] = []): Promise<Answers[K]> {
    const id = this.nextId++;
    return new Promise<Answers[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: Answers[Op]) => void, reject });
      this.worker.postMessage({ id, op, ...args } as Envelope, transfer);
    });
  }

  /** Stops whatever the worker does: every pending request rejects with Cancelled. */
  cancel(): void {
    this.worker.terminate();
    this.failAll(new Cancelled());
    this.start();
  }
}
