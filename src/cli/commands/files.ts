// PLACEHOLDER: print / parse / info, written next by the lead.
import type { Command } from "commander";
export function registerFileCommands(_program: Command): void {}
