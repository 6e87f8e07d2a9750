// PLACEHOLDER: the run command(s) register here when their issue lands.
import type { Command } from "commander";
export function registerRunCommands(_program: Command): void {}
