// After tsup: the published types declare what they rely on. `await using` needs
// Symbol.asyncDispose, which a consumer's `lib` setting may predate (a browser app on es2023): the
// bundled declarations get the library reference tsup's type bundler drops from the sources.
import { readFileSync, writeFileSync } from 'node:fs';

const REFERENCE = '/// <reference lib="esnext.disposable" />\n';
for (const file of ['dist/index.d.ts']) {
  const text = readFileSync(file, 'utf8');
  if (!text.startsWith(REFERENCE)) writeFileSync(file, REFERENCE + text);
}
