import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Turn } from '../../../src/runtime/contract/index.js';

/** A fresh directory under the OS temp dir (or in RAM, /dev/shm, when asked and available); `cleanup` removes it. */
export function tempRoot(options: { ramBacked?: boolean } = {}): { root: string; cleanup: () => void } {
  const base = options.ramBacked && existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const root = mkdtempSync(join(base, 'indusagi-store-'));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export const user = (text: string): Turn => ({ role: 'user', blocks: [{ kind: 'text', text }] });
export const assistant = (text: string): Turn => ({ role: 'assistant', blocks: [{ kind: 'text', text }] });

export const toolCall = (id: string, name: string, input: unknown): Turn => ({
  role: 'assistant',
  blocks: [
    { kind: 'text', text: `Calling ${name}.` },
    { kind: 'tool_call', id, name, input },
  ],
});

export const toolResult = (callId: string, content: string, isError = false): Turn => ({
  role: 'user',
  blocks: [{ kind: 'tool_result', callId, content, isError }],
});

const fixtures = join(fileURLToPath(new URL('.', import.meta.url)), 'fixtures');

/** A child node process running a fixture script under tsx, with its stdout readable line by line. */
export type Child = { process: ChildProcess; lines: AsyncIterator<string>; exited: Promise<number | null> };

export function spawnFixture(script: string, args: string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', join(fixtures, script), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return { process: child, lines, exited };
}

/** The child's next stdout line; fails if the child exits first. */
export async function nextLine(child: Child): Promise<string> {
  const next = await child.lines.next();
  if (next.done) throw new Error('the child process exited before printing the expected line');
  return next.value;
}
