// A session: the model loaded (a) and the result of the last transform (b), run side by side on the
// same inputs and compared. The page's worker keeps one; each step is the function the command
// line uses for the same thing.

import { OnnxError } from "../errors.js";
import type { ExpandOptions } from "../expand/context.js";
import type { Model } from "../ir/types.js";
import { runValues, type RunOptions } from "../interp/executor.js";
import type { RValue } from "../interp/types.js";
import type { Note } from "../passes/pass.js";
import { compareOutputs, type OutputComparison } from "./compare.js";
import { requestedInputs, type InputRequest } from "./inputs.js";
import { modelFromBytes, modelFromFiles, type PickedFile } from "./load.js";
import { RefusedError } from "./notes.js";
import { assertRunnable } from "./runnable.js";
import { convert, expand, type TransformResult } from "./transform.js";

export interface Loaded {
  name: string;
  model: Model;
}

export interface RunReport {
  inputs: Record<string, RValue>;
  /** Each output of a, compared with b's when there is a result. */
  outputs: OutputComparison[];
}

export class Session {
  a?: Loaded;
  b?: Loaded;

  constructor(private readonly progress: (text: string) => void = () => {}) {}

  /** Decodes a model file (see load.ts) as the new a; the result is dropped. */
  load(name: string, bytes: Uint8Array): Loaded {
    this.progress(`decoding ${name}…`);
    this.a = { name, model: modelFromBytes(bytes, name) };
    this.b = undefined;
    return this.a;
  }

  /**
   * Opens a model and its data files (see load.ts, modelFromFiles) as the new a; the result is
   * dropped. Data files the model names that were not given are listed in `missing`.
   */
  loadFiles(files: PickedFile[]): Loaded & { missing: string[] } {
    const opened = modelFromFiles(files);
    this.progress(`decoding ${opened.name}…`);
    this.a = { name: opened.name, model: opened.model };
    this.b = undefined;
    return { ...this.a, missing: opened.missing };
  }

  private loaded(): Loaded {
    if (!this.a) throw new OnnxError("E_USAGE", "load a model first");
    return this.a;
  }

  /** a converted to an opset: the new b, with the notes; a refusal throws a RefusedError. */
  convert(target: number): { result: Loaded; notes: Note[] } {
    const a = this.loaded();
    this.progress("conversion…");
    return this.keep(convert(a.model, target), `${a.name} (opset ${target})`);
  }

  /** a expanded; `label` names the result. */
  expand(options: ExpandOptions, label: string): { result: Loaded; notes: Note[] } {
    const a = this.loaded();
    this.progress("expansion…");
    return this.keep(expand(a.model, options), `${a.name} (${label})`);
  }

  private keep(r: TransformResult, name: string): { result: Loaded; notes: Note[] } {
    if (!r.ok) throw new RefusedError(r.notes);
    this.b = { name, model: r.model };
    return { result: this.b, notes: r.notes };
  }

  /**
   * Runs a, and b when there is one, on the same inputs, each refused first when the command
   * line's run would refuse it, and compares their outputs.
   */
  run(req: InputRequest, opts: RunOptions = {}): RunReport {
    const a = this.loaded();
    const sides = this.b ? [a, this.b] : [a];
    for (const s of sides) assertRunnable(s.model, s.name);
    const inputs = requestedInputs(a.model, req);
    const [ra, rb] = sides.map((s) => {
      this.progress(`running ${s.name}…`);
      return runValues(s.model, inputs, opts);
    });
    return { inputs, outputs: compareOutputs(ra!, rb) };
  }
}
