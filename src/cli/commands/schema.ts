// PLACEHOLDER: the schema command(s) register here when their issue lands.
import type { Command } from "commander";
export function registerSchemaCommands(_program: Command): void {}
