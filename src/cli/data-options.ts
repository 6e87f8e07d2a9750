// The options of every command that writes a model (convert, expand, check --write-value-info,
// parse): where its tensor data goes (docs/semantics.md, "Models of any size").

import type { Command } from "commander";
import { OnnxError } from "../errors.js";
import type { SaveOptions } from "../io/files.js";
import { parseByteSize } from "./util.js";

/** The options of every command that writes a model: where its tensor data goes. */
export interface DataFlags {
  externalData?: string;
  sizeThreshold?: string;
  inlineData?: boolean;
}

/** Adds --external-data, --size-threshold and --inline-data to a command that writes a model. */
export function withDataOptions(cmd: Command): Command {
  return cmd
    .option(
      "--external-data <file>",
      "put every tensor of --size-threshold bytes or more into this file beside the output",
    )
    .option(
      "--size-threshold <bytes>",
      "the smallest tensor a data file takes (default 1024, as ONNX's)",
    )
    .option("--inline-data", "every tensor inline (refused where the model would pass 2 GiB)");
}

/** The save options the data flags give. */
export function dataOptions(
  opts: DataFlags,
): Pick<SaveOptions, "externalData" | "inlineData" | "sizeThreshold"> {
  if (opts.externalData !== undefined && opts.externalData.trim() === "")
    throw new OnnxError(
      "E_USAGE",
      `--external-data needs a file name beside the output, not '${opts.externalData}'`,
    );
  if (opts.inlineData && opts.externalData)
    throw new OnnxError("E_USAGE", "give --inline-data or --external-data, not both");
  const threshold =
    opts.sizeThreshold !== undefined
      ? opts.sizeThreshold.trim() === "0"
        ? 0
        : parseByteSize(opts.sizeThreshold, "--size-threshold")
      : undefined;
  return {
    ...(opts.externalData
      ? {
          externalData: {
            location: opts.externalData,
            ...(threshold !== undefined ? { threshold } : {}),
          },
        }
      : {}),
    ...(opts.inlineData ? { inlineData: true } : {}),
    ...(threshold !== undefined ? { sizeThreshold: threshold } : {}),
  };
}
