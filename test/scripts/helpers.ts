import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (the scripts and their configuration are read from here). */
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A throwaway project tree in the OS temp folder: `write` files into it, `run` a script in it. */
export interface Fixture {
  dir: string;
  write(files: Record<string, string>): void;
  /** Links `node_modules` to the repository's, so packages resolve as they do here. */
  linkNodeModules(): void;
  /** Runs `script` (a path from the repository root) with `args`, in the fixture's folder. */
  run(script: string, args?: readonly string[]): { status: number | null; output: string };
  remove(): void;
}

export function createFixture(): Fixture {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'graphcloud-script-test-'));
  return {
    dir,
    write(files) {
      for (const [name, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        writeFileSync(path.join(dir, name), text);
      }
    },
    linkNodeModules() {
      symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'), 'junction');
    },
    run(script, args = []) {
      const result = spawnSync(process.execPath, [path.join(REPO, script), ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
