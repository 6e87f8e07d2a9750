#!/usr/bin/env node
import { startCli } from "./program.js";

await startCli(process.argv);
