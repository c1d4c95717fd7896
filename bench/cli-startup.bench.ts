// `npm start` on a terminal until the chat shows its first prompt, against a raw baseline measured in
// the same run: `node -e` printing the same prompt under the same pseudo-terminal (util-linux `script`).
// What the ratio shows is what the CLI adds (npm, tsx, the chat's modules, the demo model, the session store;
// not `@anthropic-ai/sdk`, which the first model call loads: tests/cli/sdk-load.test.ts).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, report } from './stats.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = 7;
const PROMPT = 'you ›';

/** Milliseconds from spawn until `PROMPT` appears on the pseudo-terminal; the process is then stopped. */
function timeToPrompt(command: string, env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: { ...process.env, ...env }, detached: true });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes(PROMPT)) {
        const elapsed = performance.now() - started;
        process.kill(-child.pid!, 'SIGKILL');
        resolve(elapsed);
      }
    });
    child.once('close', () => reject(new Error(`no prompt in:\n${out}`)));
  });
}

const dir = await mkdtemp(join(tmpdir(), 'indusagi-startup-'));
try {
  const locations = `--store ${join(dir, 'sessions')} --memory ${join(dir, 'memory.jsonl')}`;
  const env = { ANTHROPIC_API_KEY: '', NO_COLOR: '1' };
  const chat = `npm start --silent -- ${locations}`;
  const raw = `node -e "process.stdout.write('${PROMPT} ')"`;
  await timeToPrompt(chat, env);
  const subject: number[] = [];
  const baseline: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    baseline.push(await timeToPrompt(raw, env).catch(() => timeToPrompt(raw, env)));
    subject.push(await timeToPrompt(chat, env));
  }
  report('npm start to the first prompt (pty)', median(subject), median(baseline), 'ms');
} finally {
  await rm(dir, { recursive: true, force: true });
}
