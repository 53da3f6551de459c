#!/usr/bin/env node
/**
 * `graphcloud-sim`: runs the simulator standalone until SIGINT or SIGTERM.
 * Port: `--port N` or `GRAPHCLOUD_SIM_PORT` (cloud on N, registry/proxy on N+1, files on N+2);
 * `--local` for the local-runtime mode, `--cors` for browsers.
 *
 * @example
 * // npx graphcloud-sim --port 8188 --cors
 */
import { parseArgs } from 'node:util';
import { startSimulator } from './simulator.js';

/** Fixed demo credentials so a standalone simulator is easy to point a client at. */
const DEMO_CREDENTIALS = Object.freeze({
  apiKey: 'gcsim_demo_api_key',
  otherApiKey: 'gcsim_other_api_key',
  token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJkZW1vLXVzZXIifQ.demo-signature',
  memberToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJtZW1iZXItdXNlciJ9.member-signature',
});

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      local: { type: 'boolean', default: false },
      cors: { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      'task-duration-ms': { type: 'string' },
      'step-delay-ms': { type: 'string' },
    },
  });
  const portText = values.port ?? process.env.GRAPHCLOUD_SIM_PORT;
  const port = portText === undefined ? 0 : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65533) throw new Error(`invalid port: ${portText}`);
  const number = (text: string | undefined): number | undefined => (text === undefined ? undefined : Number(text));
  const sim = await startSimulator({
    ...DEMO_CREDENTIALS,
    port,
    registryPort: port === 0 ? 0 : port + 1,
    filesPort: port === 0 ? 0 : port + 2,
    runtime: values.local ? 'local' : 'cloud',
    cors: values.cors,
    taskDurationMs: number(values['task-duration-ms']) ?? 10_000,
    stepDelayMs: number(values['step-delay-ms']) ?? 100,
    logger: values.quiet ? undefined : (line) => console.log(line),
  });
  console.log(
    [
      `graphcloud simulator (${sim.runtime}) is running`,
      `  cloudUrl     ${sim.cloudUrl}   (WebSocket ${sim.cloudUrl.replace('http', 'ws')}/ws?clientId=...&token=API_KEY)`,
      `  registryUrl  ${sim.registryUrl}`,
      `  proxyUrl     ${sim.proxyUrl}`,
      `  filesUrl     ${sim.filesUrl}`,
      `  apiKey       ${sim.apiKey}   (X-API-Key, ws token, extra_data.api_key_platform_org)`,
      `  otherApiKey  ${sim.otherApiKey}   (a second cloud user)`,
      `  token        ${sim.token}   (Bearer, owner of demo-publisher)`,
      `  memberToken  ${sim.memberToken}   (Bearer, member of demo-publisher)`,
      'Press Ctrl+C to stop.',
    ].join('\n'),
  );
  const stop = (): void => {
    void sim.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
