// The API reference builds with no warning. Runs TypeDoc with the repository's typedoc.json
// (`treatWarningsAsErrors`, validation of undocumented members, unexported references and broken
// links) into a temporary folder, removes the folder, and exits with TypeDoc's code. TypeDoc
// validates only while it renders (`--emit none` skips the checks), hence the throwaway output.
//
//   node scripts/check-apiref.mjs        (from the repository root; `npm run docs` writes docs/api)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

const out = mkdtempSync(path.join(os.tmpdir(), 'graphcloud-apiref-'));
let status;
try {
  const result = spawnSync('npx', ['typedoc', '--out', out], { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.FORCE_COLOR ?? '0' } });
  if (result.error) console.error(`check-apiref: could not run TypeDoc: ${result.error.message}`);
  status = result.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
if (status === 0) console.log('check-apiref: OK: TypeDoc built the API reference with no warning');
else console.error(`check-apiref: TypeDoc failed (exit ${status}); run \`npx typedoc --out /tmp/api --treatWarningsAsErrors false\` to list every warning`);
process.exit(status);
