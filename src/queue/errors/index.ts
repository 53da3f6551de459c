export { RunFailedError } from './run-failed-error.js';
export { RunUnknownError } from './run-unknown-error.js';
