// Notes of a transform as lines for a person: `level: where: message`.

import { OnnxError } from "../errors.js";
import type { Note } from "../passes/pass.js";

/** One note as one line (control characters are the printer's to escape). */
export function formatNote(n: Note): string {
  return `${n.level}: ${n.where ? `${n.where}: ` : ""}${n.message}`;
}

/** Notes a person should see: warnings and errors, not what a transform did. */
export function problemNotes(notes: Note[]): Note[] {
  return notes.filter((n) => n.level !== "info");
}

/** A refused transform as an error carrying its problem lines. */
export class RefusedError extends OnnxError {
  readonly lines: string[];
  constructor(notes: Note[]) {
    const lines = problemNotes(notes).map(formatNote);
    super("E_UNSUPPORTED", `refused: ${lines.length} problem${lines.length === 1 ? "" : "s"}`);
    this.lines = lines;
  }
}
