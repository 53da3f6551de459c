/**
 * The graphcloud simulator: a local stand-in for the cloud, registry and proxy APIs.
 *
 * @example
 * import { startSimulator } from 'graphcloud/testing';
 * const sim = await startSimulator();
 * await sim.close();
 *
 * @module graphcloud/testing
 */
export { startSimulator, SIMULATOR_DEFAULTS } from './simulator.js';
export { FAULT_HEADER } from './faults/header.js';
export { BINARY_EVENT, IMAGE_FORMAT } from './cloud/frames.js';
export { encodePng, type Rgb } from './files/png.js';
export type {
  FailureRule,
  FailureRuleHandle,
  FaultControl,
  FaultSettings,
  JobSnapshot,
  RequestRecord,
  Simulator,
  SimulatorArea,
  SimulatorOptions,
  SimulatorState,
} from './types/public.js';
