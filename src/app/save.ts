// A model as the files a download gives (the page): the same savedForm (io/placement.ts) that the
// command line's saveModel writes to disk, so a download and `-o` hold the same bytes.

import { DEFAULT_THRESHOLD, dataPieces, savedForm } from "../io/placement.js";
import type { Model } from "../ir/types.js";
import type { Piece } from "../proto/writer.js";

/** A file to give: its name and its bytes as pieces (ranges of the picked files among them). */
export interface ModelFile {
  name: string;
  pieces: Piece[];
}

/**
 * The model as files named after `name`: the model, and its data file `<name>.data` when it
 * keeps tensors in one (as when saved into another folder: every external tensor copied into it,
 * and any model that would pass 2 GiB). Nothing is read: ranges stay ranges.
 */
export function modelFiles(model: Model, name: string, format: "binary" | "text"): ModelFile[] {
  const dataName = `${name}.data`;
  const place = { dataName, threshold: DEFAULT_THRESHOLD, keeps: () => false };
  const form = savedForm(model, format, place, name);
  const files: ModelFile[] = [{ name, pieces: form.pieces }];
  if (form.layout && form.layout.items.length > 0)
    files.push({ name: dataName, pieces: dataPieces(form.layout) });
  return files;
}
