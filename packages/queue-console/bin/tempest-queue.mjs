#!/usr/bin/env node
import { processIo } from "../dist/cli/cli-io.js";
import { runCli } from "../dist/cli/run-cli.js";

process.exitCode = await runCli(process.argv.slice(2), processIo());
