// The layering rules of docs/architecture.md ("Layers"), checked by `node scripts/check-layers.mjs`
// (a step of `npm test`). That script also checks what dependency-cruiser cannot say in a rule:
// no cycle between folders. Each rule's `comment` is the reason printed beside a violation.
//
// Paths are those of the target layout: src/cloud/shared, src/cloud/watch, src/cloud/workflow, src/cloud/*.ts,
// src/registry, src/proxy, src/core, src/testing, src/server (the relay), src/cli.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-file-cycle',
      severity: 'error',
      comment:
        'two files must not import each other, directly or through others: split the shared part into a lower module (type-only imports count too)',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'ky-only-in-core',
      severity: 'error',
      comment: 'only src/core/ talks to ky (HttpClient is the one HTTP caller: auth, redirects, retries, redaction); use HttpClient',
      from: { path: '^src/', pathNot: '^src/core/' },
      to: { path: '(^|/)node_modules/ky/' },
    },
    {
      name: 'ws-only-in-testing-and-server',
      severity: 'error',
      comment:
        'only src/testing/ (the simulator) and src/server/ (the relay) may import ws: the SDK runs in browsers, and takes a WebSocket constructor from the user instead',
      from: { path: '^src/', pathNot: '^src/(testing|server)/' },
      to: { path: '(^|/)node_modules/(@types/)?ws/' },
    },
    {
      name: 'public-entry-reaches-no-tooling',
      severity: 'error',
      comment:
        'nothing reachable from src/index.ts may import src/testing/, src/cli/, src/server/ or src/codegen/: they are entries of their own (the first three Node-only), and would reach every browser bundle',
      from: { path: '^src/index\\.ts$' },
      to: { path: '^src/(testing|cli|server|codegen)/', reachable: true },
    },
    {
      name: 'bullmq-only-in-queue',
      severity: 'error',
      comment:
        'only src/queue/ may import bullmq or ioredis: they are optional peer dependencies of the graphcloud/queue entry, and the main entry and every browser bundle must never load them',
      from: { path: '^src/', pathNot: '^src/queue/' },
      to: { path: '(^|/)node_modules/(bullmq|ioredis)/' },
    },
    {
      name: 'public-entry-reaches-no-queue-engine',
      severity: 'error',
      comment:
        'nothing reachable from src/index.ts may import bullmq or ioredis: graphcloud/queue is an entry of its own, for the apps that install them',
      from: { path: '^src/index\\.ts$' },
      to: { path: '(^|/)node_modules/(bullmq|ioredis)/', reachable: true },
    },
    {
      name: 'core-imports-only-core',
      severity: 'error',
      comment: 'src/core/ is shared by every client and knows none of them: move the shared part into core, or pass it in',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'watch-knows-no-client',
      severity: 'error',
      comment:
        'src/cloud/watch/ knows no CloudClient and none of its resources (src/cloud/*.ts): give it what it needs (transport, job reader) through its constructor',
      from: { path: '^src/cloud/watch/' },
      to: { path: '^src/cloud/[^/]+\\.ts$' },
    },
    {
      name: 'shared-is-the-bottom-of-cloud',
      severity: 'error',
      comment:
        'src/cloud/shared/ (types, errors, defaults, wire schemas, status mapping, outputs, the job reader) is the bottom layer of the cloud, shared by the watcher and the resources: it imports neither src/cloud/watch/, src/cloud/workflow/ nor src/cloud/*.ts',
      from: { path: '^src/cloud/shared/' },
      to: { path: '^src/cloud/(watch/|workflow/|[^/]+\\.ts$)' },
    },
    {
      name: 'clients-are-independent',
      severity: 'error',
      comment:
        'registry, proxy and cloud never import each other (an app that imports one client must not ship the others): move what they share into src/core/',
      from: { path: '^src/(registry|proxy|cloud)/' },
      to: { path: '^src/(registry|proxy|cloud)/', pathNot: '^src/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies of the design too (a cycle through types is a cycle).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // node_modules is a symlink in worktrees: keep the path as written so the rules above match.
    preserveSymlinks: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.d.ts'],
    },
    exclude: { path: '^dist/' },
  },
};
