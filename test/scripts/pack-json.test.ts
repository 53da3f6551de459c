import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createFixture, REPO, type Fixture } from './helpers.js';

// `npm pack --json` (and `npm publish --json`) print their JSON on stdout after `prepack`, which
// builds: a build log on stdout (tsup's "CLI Building entry: ...") made that JSON unreadable.
// The fixture is the repository's real package.json, build script and configurations around
// four one-line sources (the entries tsup.config.ts names), so the build is the real one, fast.
describe('npm pack --json', () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.remove());

  it('prints JSON alone on stdout, though prepack builds dist/', () => {
    fixture = createFixture();
    for (const file of ['package.json', 'tsup.config.ts', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'scripts']) {
      cpSync(path.join(REPO, file), path.join(fixture.dir, file), { recursive: true });
    }
    fixture.write({
      'src/index.ts': 'export const entry = 1;\n',
      'src/server/index.ts': 'export const server = 1;\n',
      'src/testing/index.ts': 'export const testing = 1;\n',
      'src/cli/main.ts': "import { entry } from '../index.js';\nconsole.log(entry);\n",
      'src/cli/sim-main.ts': "import { testing } from '../testing/index.js';\nconsole.log(testing);\n",
    });
    fixture.linkNodeModules();

    const npm = spawnSync('npm', ['pack', '--json', '--dry-run'], {
      cwd: fixture.dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? fixture.dir, LANG: 'C.UTF-8', npm_config_update_notifier: 'false', npm_config_fund: 'false' },
    });

    expect(npm.status, npm.stderr).toBe(0);
    const [pack] = JSON.parse(npm.stdout) as { name: string; files: { path: string }[] }[];
    expect(pack?.name).toBe(JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')).name);
    // prepack really built: the entries are in the package it lists.
    expect(pack?.files.map((file) => file.path)).toEqual(expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/testing.js', 'dist/cli.js']));
  }, 180_000);
});
