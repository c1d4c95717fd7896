import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtInTools, Workspace } from '../../../src/cli/tools/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { ToolError } from '../../../src/entries/errors.js';
import type { ToolDefinition } from '../../../src/runtime/contract/index.js';
import { alive, untilEnded, untilFile } from './processes.js';

// The bash tool runs real commands in a real workspace folder; its process group is checked through /proc.
let root: string;
let bash: ToolDefinition;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'indusagi-bash-')));
  const tools = builtInTools({ workspace: await Workspace.open(root), memory: createMemoryStore(), maxReadChars: 1_000 });
  bash = tools.find((t) => t.name === 'bash')!;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (input: unknown, signal = new AbortController().signal) => Promise.resolve(bash.execute(input, { signal, callId: 'c1' }));
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );

describe('the bash tool', () => {
  it('waits for approval, runs in the workspace folder, and returns stdout and stderr', async () => {
    expect(bash.needsApproval).toBe(true);
    expect(await run({ command: 'pwd; echo out' })).toBe(`${root}\nout`);
    // Two pipes: each stream's lines keep their order; the streams interleave as their chunks arrive.
    expect(
      String(await run({ command: 'echo err >&2; echo out' }))
        .split('\n')
        .sort(),
    ).toEqual(['err', 'out']);
    expect(await run({ command: 'true' })).toBe('(no output)');
  });

  it('makes a non-zero exit a tool error that carries the output and the code', async () => {
    const error = await failure(run({ command: 'echo partial; exit 3' }));
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('partial\n[exit code 3]');
  });

  it('caps the output: the first and the last half, the middle cut and counted', async () => {
    // 2 × 1,000 characters are kept (twice maxReadChars); 100,000 lines are printed.
    const text = String(await run({ command: 'seq 1 100000' }));
    expect(text.length).toBeLessThan(2_100);
    expect(text.startsWith('1\n2\n3\n')).toBe(true);
    expect(text.endsWith('99999\n100000')).toBe(true);
    expect(text).toMatch(/\n\[… \d+ characters cut …\]\n/);
  });

  it('ends the whole process group at the timeout, background jobs included', async () => {
    const pids = join(root, 'pids');
    const error = await failure(run({ command: `sleep 300 & sleep 300 & echo "$$ $(jobs -p)" > ${pids}; wait`, timeout_seconds: 1 }));
    expect((error as Error).message).toMatch(/\[timed out after 1 s: the command and everything it started were stopped\]$/);
    const started = (await readFile(pids, 'utf8')).trim().split(/\s+/).map(Number);
    expect(started).toHaveLength(3);
    // The call ends once the group's pipes close; each process then ends as the kernel next schedules it.
    await Promise.all(started.map(untilEnded));
  });

  it('ends the process group when the run is aborted, and says so with what the command printed', async () => {
    const pids = join(root, 'pids');
    const controller = new AbortController();
    const call = failure(
      run({ command: `echo started; sleep 300 & echo "$$ $!" > ${pids}.tmp && mv ${pids}.tmp ${pids}; wait` }, controller.signal),
    );
    await untilFile(root, 'pids');
    const started = (await readFile(pids, 'utf8')).trim().split(/\s+/).map(Number);
    for (const pid of started) expect(alive(pid)).toBe(true);
    controller.abort();
    const error = await call;
    expect(ToolError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('started\n[stopped: the run was interrupted; the command and everything it started were ended]');
    await Promise.all(started.map(untilEnded));
  });

  it('ends what a command left running in the background once its shell exits', async () => {
    const output = String(await run({ command: `sleep 300 & echo $!` }));
    await untilEnded(Number(output));
  });

  it('refuses a call without a command, and starts nothing for an aborted signal', async () => {
    expect(ToolError.isInstance(await failure(run({ command: ' ' })))).toBe(true);
    const controller = new AbortController();
    controller.abort();
    expect(((await failure(run({ command: `touch ${join(root, 'ran')}` }, controller.signal))) as Error).message).toBe(
      '[not started: the run was interrupted]',
    );
    await expect(readFile(join(root, 'ran'))).rejects.toThrow();
  });
});
