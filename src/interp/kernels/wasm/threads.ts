// Starting the kernels' helper threads, wherever the interpreter runs. In Node: worker_threads,
// each running a source text built from the kernel's own task functions (toString). In a browser:
// nested dedicated Web Workers started from the interpreter's worker, running a script of the
// page's own origin (registered with setHelperScript; the page's Content-Security-Policy allows
// neither blob: workers nor eval) that calls the same functions. A browser worker needs cross-origin
// isolation for shared memory; without it, or on the page's main thread (which may not block
// in Atomics.wait), or without a registered script, no helper starts and the kernels run on one
// thread. A helper starts asynchronously: callers never wait for one that is not running yet.

/** A running helper thread. */
export interface HelperThread {
  terminate(): void;
}

interface NodeProcess {
  getBuiltinModule?(id: string): unknown;
  once(event: "exit", f: () => void): void;
}
interface NodeWorker {
  unref(): void;
  on(event: "error" | "exit", f: () => void): void;
  terminate(): Promise<number>;
}
interface NodeWorkerThreads {
  Worker: new (
    source: string,
    opts: { eval: true; execArgv: string[]; workerData: unknown; transferList?: unknown[] },
  ) => NodeWorker;
}
interface NodeOs {
  availableParallelism?(): number;
  cpus(): unknown[];
}
interface BrowserWorker {
  postMessage(data: unknown): void;
  terminate(): void;
  onerror: ((e: unknown) => void) | null;
}
interface BrowserScope {
  crossOriginIsolated?: boolean;
  Worker?: new (url: string | URL, opts?: { name?: string }) => BrowserWorker;
  WorkerGlobalScope?: unknown;
  navigator?: { hardwareConcurrency?: number };
}

const nodeProcess = (): NodeProcess | undefined => {
  const p = (globalThis as { process?: NodeProcess }).process;
  return typeof p?.getBuiltinModule === "function" ? p : undefined;
};

let helperScript: string | URL | undefined;

/**
 * A browser worker's helper script (a bundle calling runHelper for each helper kind, e.g.
 * dist/web/helper.js); without one, helpers run in Node only.
 */
export function setHelperScript(url: string | URL | undefined): void {
  helperScript = url;
}

/** A Node built-in module (getBuiltinModule: no static `node:` import); undefined elsewhere. */
export function nodeBuiltin<T>(id: string): T | undefined {
  return nodeProcess()?.getBuiltinModule!(id) as T | undefined;
}

/** Where helper threads can run: "node", "browser", or undefined (one thread). */
export function helperPlatform(): "node" | "browser" | undefined {
  const proc = nodeProcess();
  if (proc) return nodeBuiltin("node:worker_threads") ? "node" : undefined;
  const g = globalThis as BrowserScope;
  const shared =
    typeof SharedArrayBuffer === "function" && typeof Atomics === "object" && g.crossOriginIsolated;
  if (shared && g.WorkerGlobalScope !== undefined && typeof g.Worker === "function" && helperScript)
    return "browser";
  return undefined;
}

/** The cores of this machine (1 where unknown). */
export function coreCount(): number {
  const os = nodeBuiltin<NodeOs>("node:os");
  if (os) return os.availableParallelism?.() ?? os.cpus().length;
  return Math.max(1, (globalThis as BrowserScope).navigator?.hardwareConcurrency ?? 1);
}

export interface HelperSpec {
  /** The helper kind (the browser script dispatches on it). */
  kind: string;
  /** Node: the helper's source, reading its data from workerData. */
  nodeSource: string;
  /** Handed to the helper: control words, memory, compiled module (structured-cloneable). */
  data: Record<string, unknown>;
  /** Node: objects of `data` transferred rather than cloned (message ports). */
  transfer?: unknown[];
  /** Called once if the helper fails or ends. */
  onFail: () => void;
  /** Node only (the helper needs Node's synchronous message ports): one thread elsewhere. */
  nodeOnly?: boolean;
}

/** Starts one helper thread; undefined where none can run (see helperPlatform). */
export function startHelper(spec: HelperSpec): HelperThread | undefined {
  const where = helperPlatform();
  if (where === "node") {
    const proc = nodeProcess()!;
    const wt = nodeBuiltin<NodeWorkerThreads>("node:worker_threads")!;
    const w = new wt.Worker(spec.nodeSource, {
      eval: true,
      execArgv: [], // plain script: no loaders or flags of the parent (e.g. --input-type)
      workerData: spec.data,
      ...(spec.transfer ? { transferList: spec.transfer } : {}),
    });
    w.unref(); // never keeps the process alive
    w.on("error", spec.onFail);
    w.on("exit", spec.onFail);
    proc.once("exit", () => void w.terminate());
    return { terminate: () => void w.terminate() };
  }
  if (where === "browser" && !spec.nodeOnly) {
    const W = (globalThis as BrowserScope).Worker!;
    const w = new W(helperScript!, { name: `onnx-expand ${spec.kind} helper` });
    w.onerror = () => spec.onFail();
    w.postMessage({ kind: spec.kind, ...spec.data });
    return { terminate: () => w.terminate() };
  }
  return undefined;
}
