// The README's "Quick start" transcript is what the terminal agent prints today: its commands are run as
// written, by bash, against the offline demo model, and their output must equal the transcript's lines
// once what differs from run to run (session ids, approval ids, times, content hashes) is masked.
//
// `npm start` and `npx tsx src/cli/main.ts` name the repo's package.json and src/, so they are run
// through shell functions that start the same CLI from the repo (the `start` script is checked to be
// what they stand for), in a scratch folder: the sessions and memory the commands write are their own,
// not the developer's, and `examples/web-chat`, the folder the first prompt lists, holds the names the
// repo's does.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const readme = readFileSync(join(repo, 'README.md'), 'utf8');

/** The Quick start section's console block, as commands and the lines each printed. */
function transcript(): { command: string; output: string[] }[] {
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = section.match(/^```console\n([\s\S]*?)^```$/m);
  if (!block) throw new Error('README.md: no ```console block under "## Quick start"');
  const steps: { command: string; output: string[] }[] = [];
  for (const line of block[1].trimEnd().split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
    else if (steps.length === 0) throw new Error(`README.md: the transcript starts with output, not a command: ${line}`);
    else steps.at(-1)!.output.push(line);
  }
  return steps;
}

// What varies between runs, and only that.
const SESSION_ID = /\b\d{8}-\d{6}-[0-9a-f]{4}\b/g;
const mask = (line: string) =>
  line
    .replace(SESSION_ID, '<session>')
    .replace(/\btoolu_demo_[0-9a-f]+\b/g, '<approval>')
    .replace(/\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\b/g, '<time>')
    .replace(/\bleaf [0-9a-f]{8}\b/, 'leaf <hash>');

// Real keys in the developer's shell would send the prompts to a real model.
const CREDENTIALS = /^(ANTHROPIC|OPENAI|GOOGLE_GENERATIVE_AI|AZURE|AWS|MISTRAL|GROQ|XAI|DEEPSEEK|INDUSAGI)_/;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'indusagi-quick-start-'));
  // The listed folder's entries, as the repo has them (empty files and folders: the listing shows names only).
  const listed = join(repo, 'examples/web-chat');
  for (const entry of readdirSync(listed, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    if (entry.isDirectory()) mkdirSync(join(dir, 'examples/web-chat', entry.name), { recursive: true });
    else {
      mkdirSync(join(dir, 'examples/web-chat'), { recursive: true });
      writeFileSync(join(dir, 'examples/web-chat', entry.name), '');
    }
  }
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it("the README's Quick start transcript is what `npm start` prints with the demo model, ids and times aside", async () => {
  const scripts = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).scripts as Record<string, string>;
  expect(scripts.start, 'the shell function below stands for this script').toBe('tsx src/cli/main.ts chat');
  const cli = `node --import ${JSON.stringify(import.meta.resolve('tsx'))} ${JSON.stringify(join(repo, 'src/cli/main.ts'))}`;
  const prelude = [
    'set -o pipefail',
    `npm() { if [ "$1 $2" != "start --silent" ]; then echo "not in the transcript: npm $*" >&2; return 64; fi; shift 2; [ "$1" = -- ] && shift; ${cli} chat "$@"; }`,
    `npx() { if [ "$1 $2" != "tsx src/cli/main.ts" ]; then echo "not in the transcript: npx $*" >&2; return 64; fi; shift 2; ${cli} "$@"; }`,
  ].join('\n');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !CREDENTIALS.test(name)));

  const steps = transcript();
  expect(steps.length).toBeGreaterThanOrEqual(3);
  // The README's commands name the session its first command made; the run's own id stands in for it.
  const shownId = steps[0].output.join('\n').match(SESSION_ID)?.[0];
  let sessionId: string | undefined;
  for (const step of steps) {
    const command = sessionId && shownId ? step.command.replaceAll(shownId, sessionId) : step.command;
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((done, fail) =>
      execFile('bash', ['-c', `${prelude}\n${command}`], { cwd: dir, env: { ...env, HOME: dir } }, (error, stdout, stderr) =>
        error ? fail(new Error(`$ ${step.command}\n${error.message}\n${stdout}\n${stderr}`)) : done({ stdout, stderr }),
      ),
    );
    sessionId ??= stdout.match(SESSION_ID)?.[0];
    expect(stderr, `$ ${step.command}`).toBe('');
    expect(stdout.trimEnd().split('\n').map(mask), `$ ${step.command}`).toEqual(step.output.map(mask));
  }
});
