// Which IR version goes with which ai.onnx opset: ONNX's release table (docs/Versioning.md,
// "Released Versions", and onnx/helper.py's VERSION_TABLE). The checker asks it whether a model's
// IR version is new enough for its opset; the converter asks it which IR version to write when it
// moves a model to another opset, and which opsets a model of a given IR version may import.

/** One ONNX release: the IR version and the ai.onnx opset it shipped. */
export interface OnnxRelease {
  readonly onnx: string;
  readonly irVersion: number;
  readonly opset: number;
}

/** ONNX releases, oldest first (patch releases that changed neither number are left out). */
export const ONNX_RELEASES: readonly OnnxRelease[] = Object.freeze(
  (
    [
      ["1.0", 3, 1],
      ["1.1", 3, 5],
      ["1.1.2", 3, 6],
      ["1.2", 3, 7],
      ["1.3", 3, 8],
      ["1.4.1", 4, 9],
      ["1.5.0", 5, 10],
      ["1.6.0", 6, 11],
      ["1.7.0", 7, 12],
      ["1.8.0", 7, 13],
      ["1.9.0", 7, 14],
      ["1.10.0", 8, 15],
      ["1.11.0", 8, 16],
      ["1.12.0", 8, 17],
      ["1.13.0", 8, 18],
      ["1.14.0", 9, 19],
      ["1.15.0", 9, 20],
      ["1.16.0", 10, 21],
      ["1.17.0", 10, 22],
      ["1.18.0", 11, 23],
      ["1.19.0", 12, 24],
      ["1.20.0", 13, 25],
      ["1.21.0", 13, 26],
      ["1.22.0", 13, 27],
      ["1.23.0", 13, 28],
    ] as const
  ).map(([onnx, irVersion, opset]) => Object.freeze({ onnx, irVersion, opset })),
);

/** The newest IR version this tool reads and writes (proto/onnx.proto). */
export const MAX_IR_VERSION = 14;

/** IR version 8 introduced model-local functions. */
export const MIN_IR_VERSION_FOR_FUNCTIONS = 8;

/** The first release that shipped `opset` itself (opsets 2-4 were never released on their own). */
export function releaseOfOpset(opset: number): OnnxRelease | undefined {
  return ONNX_RELEASES.find((r) => r.opset === opset);
}

/**
 * The IR version released with ai.onnx `opset` (undefined for an opset no release shipped: 2-4,
 * and the opsets after the newest release in the table).
 */
export function releasedIrVersion(opset: number): number | undefined {
  return releaseOfOpset(opset)?.irVersion;
}

/**
 * The lowest IR version a model importing ai.onnx `opset` needs: that of the first release that
 * shipped the opset or a newer one. An opset newer than every release needs no more than the
 * newest release's IR version.
 */
export function minIrVersionForOpset(opset: number): number {
  for (const r of ONNX_RELEASES) if (r.opset >= opset) return r.irVersion;
  return ONNX_RELEASES[ONNX_RELEASES.length - 1]!.irVersion;
}

/**
 * The newest ai.onnx opset a model of IR version `irVersion` may import: the newest opset whose
 * first release has this IR version or an older one (0 when the IR version predates opsets).
 * From the newest IR version in the table on, every opset the table knows.
 */
export function maxOpsetForIrVersion(irVersion: number): number {
  let best = 0;
  for (const r of ONNX_RELEASES) if (r.irVersion <= irVersion) best = r.opset;
  return best;
}
