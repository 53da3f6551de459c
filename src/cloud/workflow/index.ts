export { toApiWorkflow } from './to-api.js';
export { isUiWorkflow, describeWorkflowFormat, UI_FORMAT_HINT, type WorkflowFormat } from './validate.js';
export { resolveAddress, setInputs, type ResolvedAddress } from './addresses.js';
export { WorkflowConversionError, describeNode, type WorkflowConversionCode, type WorkflowNodeRef } from './errors.js';
export { WorkflowAddressError, type AddressCandidate } from './errors.js';
export type { ToApiWorkflowOptions, UiLinkArray, UiLinkObject, UiNode, UiNodeId, UiWorkflow } from './types.js';
