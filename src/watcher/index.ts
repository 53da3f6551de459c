// Placeholder: the watcher moved to src/cloud/watch/ and its public names are exported by
// src/cloud/index.ts. Kept only because src/index.ts (owned by the lead) still re-exports this
// file; delete it together with that line.
export {};
