// What `npm pack` would publish, checked: the entry points and their types are there, CHANGELOG
// ships, and nothing that should not (tests, TypeScript sources, CI files, credentials). Run after
// the build. Prints the file count and size; exit 1 with one line per problem.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
const files = pack.files.map((f) => f.path);
const problems = [];

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const required = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']);
for (const target of Object.values(pkg.exports)) {
  for (const file of typeof target === 'string' ? [target] : Object.values(target)) required.add(file.replace(/^\.\//, ''));
}
for (const file of Object.values(pkg.bin ?? {})) required.add(file.replace(/^\.\//, ''));
for (const file of required) if (!files.includes(file)) problems.push(`missing from the package: ${file}`);

const forbidden = [
  [/^(test|tests|src|scripts|bench|examples|\.ci|docs)\//, 'a repository folder that is not published'],
  [/\.test\.[cm]?[jt]s$/, 'a test file'],
  [/(^|\/)\.env/, 'an environment file'],
  [/(^|\/)\.npmrc$/, 'an npm configuration (it may hold a token)'],
  [/\.(pem|key|p12)$/, 'a key file'],
  [/\.ts$/, 'a TypeScript source (only .d.ts belong in the package)'],
];
for (const file of files) {
  if (file.endsWith('.d.ts')) continue;
  for (const [pattern, what] of forbidden) if (pattern.test(file)) problems.push(`${file}: ${what}`);
}

// Credential-looking text in any shipped file (the simulator's fixed demo keys are not credentials).
const secrets = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, 'a private key'],
  [/\bAKIA[0-9A-Z]{16}\b/, 'an AWS access key id'],
  [/\bgh[pousr]_[A-Za-z0-9]{36}\b/, 'a GitHub token'],
  [/\bnpm_[A-Za-z0-9]{36}\b/, 'an npm token'],
  [/\bsk-(live|proj)?-?[A-Za-z0-9]{32,}\b/, 'an API secret key'],
];
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  for (const [pattern, what] of secrets) if (pattern.test(text)) problems.push(`${file}: contains ${what}`);
}

console.log(`npm pack would publish ${files.length} files, ${(pack.size / 1024).toFixed(0)} KB packed (${(pack.unpackedSize / 1024).toFixed(0)} KB unpacked)`);
if (problems.length > 0) {
  for (const problem of problems) console.error(`✖ ${problem}`);
  process.exit(1);
}
console.log('✔ entry points, types, README, LICENSE and CHANGELOG present; no tests, sources, CI files or credentials');
