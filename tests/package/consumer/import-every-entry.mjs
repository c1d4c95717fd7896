// An ES module consumer: imports every entry point the installed package's exports map declares
// (except package.json) and prints each one's export names.
import { createRequire } from 'node:module';

const { exports } = createRequire(import.meta.url)('indusagi/package.json');
const names = {};
for (const key of Object.keys(exports)) {
  if (key === './package.json') continue;
  const specifier = key === '.' ? 'indusagi' : `indusagi/${key.slice(2)}`;
  names[specifier] = Object.keys(await import(specifier)).sort();
}
console.log(JSON.stringify(names));
