// `npm test`'s static checks side by side: `node tools/checks.mjs typecheck lint "entries -- --check"`
// runs each named npm script at once and exits non-zero if any failed. Each of tsc, the type-aware
// lint and Prettier keeps one core busy for tens of seconds; one after another they left the second
// core idle for about a minute and a half of every `npm test` (issue 41 item 5). Each check's output is
// printed whole once it ends, so two checks' lines never interleave.
import { spawn } from 'node:child_process';

const checks = process.argv.slice(2);
if (checks.length === 0) {
  console.error('usage: node tools/checks.mjs SCRIPT ["SCRIPT -- ARGS" ...]  (npm scripts to run side by side)');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(check) {
  const [script, ...args] = check.split(' ');
  return new Promise((resolve) => {
    const started = performance.now();
    // FORCE_COLOR: the checks write to a pipe here, but to the user's terminal in the end.
    const child = spawn(npm, ['run', script, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...(process.stdout.isTTY && { FORCE_COLOR: '1' }) },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ check, code: 1, output: `${output}${error.stack}\n`, seconds: 0 }));
    child.on('close', (code, signal) => resolve({ check, code: code ?? 1, signal, output, seconds: (performance.now() - started) / 1000 }));
  }).then((result) => {
    const status = result.code === 0 ? 'ok' : result.signal ? `killed by ${result.signal}` : `exit ${result.code}`;
    process.stdout.write(`\n> ${result.check}: ${status} (${result.seconds.toFixed(1)} s)\n${result.output}`);
    return result;
  });
}

const results = await Promise.all(checks.map(run));
const failed = results.filter((result) => result.code !== 0);
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.map((result) => result.check).join(', ')}`);
  process.exit(1);
}
