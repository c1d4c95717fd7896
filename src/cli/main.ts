#!/usr/bin/env node
// The `indusagi` command. `npm start` runs it through tsx; the built `dist/cli/main.js` is the package's bin.
import { run } from './run.js';

// A reader that stops early (`indusagi sessions show X | head`) is not an error. The session store
// is crash-safe, so leaving at once loses nothing that was persisted.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

// The command chooses its model itself (`chooseModel` reads INDUSAGI_MODEL from `env`, `--model`
// winning over it) and gives the agents it makes that model; so `createAgent`'s own reading of the
// variable (which would point them at the demo model whatever `--model` says) must not see it.
const env = { ...process.env };
delete process.env.INDUSAGI_MODEL;

process.exitCode = await run(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env,
  cwd: process.cwd(),
});
