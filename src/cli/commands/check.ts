// PLACEHOLDER: the check command(s) register here when their issue lands.
import type { Command } from "commander";
export function registerCheckCommands(_program: Command): void {}
