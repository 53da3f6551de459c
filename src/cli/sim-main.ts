#!/usr/bin/env node
/**
 * The `graphcloud-sim` bin, kept from 0.1.0: the same as `graphcloud sim`.
 *
 * @example
 * // npx graphcloud-sim --port 8188 --cors
 */
import { runCli } from './base/app.js';
import { ROOT } from './commands/index.js';
import { processIo } from './base/process-io.js';

const io = processIo();
process.exitCode = await runCli(ROOT, ['sim', ...process.argv.slice(2)], io);
