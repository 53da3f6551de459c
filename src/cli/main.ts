#!/usr/bin/env node
/**
 * The `graphcloud` bin: the command line over the SDK's public API. Its own entry: importing
 * `graphcloud` loads none of it.
 *
 * @example
 * // npx graphcloud run workflow.json --out ./out
 */
import { runCli } from './base/app.js';
import { ROOT } from './commands/index.js';
import { processIo } from './base/process-io.js';

const io = processIo();
process.exitCode = await runCli(ROOT, process.argv.slice(2), io);
