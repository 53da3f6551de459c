// `prepare`: runs after `npm install` in this repository (never when a user installs the published
// package from the registry). On a Node older than the floor, one line saying why npm printed
// engine warnings and what `npm test` / `npm run demo` will do about it.
import { below, floor } from './node-floor.mjs';

const minimum = floor();
if (below(process.versions.node, minimum)) {
  console.warn(`graphcloud: Node ${process.versions.node} is older than the ${minimum.join('.')} this repository needs (hence npm's EBADENGINE warnings). npm test and npm run demo will run themselves under Node 24 from the npm registry; or install Node 24 from https://nodejs.org.`);
}
