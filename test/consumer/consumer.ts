// What a user's project compiles against: the BUILT package through its `exports`, with strict
// settings and skipLibCheck false (so every declaration the package ships is checked too).
// `node scripts/check-consumer.mjs` installs the packed package beside this file and compiles it
// with TypeScript 6, 5.9 and 7, under moduleResolution nodenext and bundler.
// Keep it small: constructors, DEFAULTS, the error classes and each client's main call.
import {
  ApiError,
  CloudClient,
  DEFAULTS,
  GraphcloudError,
  NotFoundError,
  ProxyClient,
  RegistryClient,
  TimeoutError,
  ValidationError,
} from 'graphcloud';
import { startSimulator, type Simulator } from 'graphcloud/testing';

export async function useEveryClient(sim: Simulator): Promise<string[]> {
  const registry = new RegistryClient({ baseUrl: sim.registryUrl, token: sim.token });
  const proxy = new ProxyClient({ baseUrl: sim.proxyUrl, token: async () => sim.token });
  const cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey, timeout: DEFAULTS.http.timeout });

  const node = await registry.nodes.get('acme-upscale');
  const task = await proxy.image.upscale({ image: 'https://example.com/a.png', scale_factor: '2x' });
  const run = await cloud.runWorkflow({ '1': { class_type: 'LoadImage', inputs: { image: 'a.png' } } });
  return [String(node.id), String(task), String(run)];
}

export function describeError(error: unknown): string {
  if (error instanceof NotFoundError) return `not found (${error.status})`;
  if (error instanceof ApiError) return `${error.status} ${error.code ?? ''} ${error.requestId ?? ''}`;
  if (error instanceof ValidationError) return `invalid: ${error.message}`;
  if (error instanceof TimeoutError) return 'timed out';
  if (error instanceof GraphcloudError) return error.message;
  return String(error);
}

export async function main(): Promise<void> {
  const sim = await startSimulator();
  try {
    console.log(await useEveryClient(sim));
  } catch (error) {
    console.error(describeError(error));
  } finally {
    await sim.close();
  }
}

// Each client's types live under its name: the published declarations must resolve every one of
// them (a bundled .d.ts once turned `RegistryClient.Node` into a type that names itself).
export interface UsesClientTypes {
  node: RegistryClient.Node;
  page: RegistryClient.NodePage;
  runOptions: CloudClient.RunWorkflowOptions;
  watcher: CloudClient.JobWatcher;
  upscale: ProxyClient.UpscaleParams;
  result: ProxyClient.ImageTaskResult<'upscale'>;
}

export async function closeEveryClient(sim: Simulator): Promise<void> {
  await using registry = new RegistryClient({ baseUrl: sim.registryUrl });
  await using cloud = new CloudClient({ baseUrl: sim.cloudUrl, apiKey: sim.apiKey });
  await using proxy = new ProxyClient({ baseUrl: sim.proxyUrl, token: sim.token });
  void [registry, cloud, proxy];
}
