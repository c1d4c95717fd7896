// A CommonJS consumer: require()s every entry point the installed package's exports map declares
// (Node >= 20.19 loads an ES module graph without top-level await this way) and prints each one's
// export names.
const { exports: entries } = require('indusagi/package.json');
const names = {};
for (const key of Object.keys(entries)) {
  if (key === './package.json') continue;
  const specifier = key === '.' ? 'indusagi' : `indusagi/${key.slice(2)}`;
  names[specifier] = Object.keys(require(specifier)).sort();
}
console.log(JSON.stringify(names));
