import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import type { Turn } from '../../src/runtime/contract/index.js';
import { CliProcess, makeWorkspace, sessionIdOf } from './cli-process.js';

let workspace: { dir: string; cleanup(): Promise<void> };

beforeEach(async () => {
  workspace = await makeWorkspace();
});
afterEach(async () => {
  await workspace.cleanup();
});

const storeDir = () => join(workspace.dir, '.indusagi', 'sessions');
const prompts = (turns: Turn[]) =>
  turns.filter((t) => t.role === 'user').flatMap((t) => t.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])));

describe('Ctrl-C in a chat', () => {
  it('stops the run, not the program, and leaves a session that loads cleanly', async () => {
    const cli = new CliProcess(['chat'], workspace.dir);
    cli.send('tell me a long story');
    await cli.waitFor(/Part 1 of 5\. The lighthouse keeper/);
    cli.child.kill('SIGINT');
    await cli.waitFor(/⏹ interrupted; the unfinished reply was not saved/);
    cli.send('what time is it?');
    const run = await cli.end();

    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('Part 5 of 5');
    expect(run.stdout).toMatch(/⏹ interrupted.*\n› what time is it\?\n\(offline demo model\) Checking the clock\./);
    const sessionId = sessionIdOf(run.stdout);

    const { graph, report } = await new SessionStore(storeDir()).loadSessionWithReport(sessionId);
    expect(report.skipped).toEqual([]);
    expect(report.orphans).toEqual([]);
    expect(report.truncatedTail).toBe(false);
    const live = graph.pathTo(graph.leaf!);
    expect(prompts(live)).toEqual(['tell me a long story', 'what time is it?']);
    // No half reply was stored: the only assistant turns are the clock exchange's.
    expect(live.filter((t) => t.role === 'assistant').map((t) => t.blocks[0])).toEqual([
      { kind: 'text', text: '(offline demo model) Checking the clock.' },
      expect.objectContaining({ kind: 'text', text: expect.stringContaining('The clock tool says it is') }),
    ]);
    // The writer lock was released, and the context a resume would send is whole: every call answered.
    expect(await readdir(storeDir())).toEqual([`${sessionId}.jsonl`]);
    const context = graph.contextTo(graph.leaf!);
    const calls = context.flatMap((t) => t.blocks.flatMap((b) => (b.kind === 'tool_call' ? [b.id] : [])));
    const results = context.flatMap((t) => t.blocks.flatMap((b) => (b.kind === 'tool_result' ? [b.callId] : [])));
    expect(results).toEqual(calls);
  });

  it('exits on a second Ctrl-C with status 130, releasing the session', async () => {
    const cli = new CliProcess(['chat'], workspace.dir);
    cli.send('list files in src');
    cli.send('tell me a long story');
    await cli.waitFor(/Part 1 of 5/);
    cli.child.kill('SIGINT');
    await cli.waitFor(/⏹ interrupted/);
    cli.child.kill('SIGINT');
    const run = await cli.finished;

    expect(run.code).toBe(130);
    expect(run.stderr).toBe('');
    const sessionId = sessionIdOf(run.stdout);
    expect(await readdir(storeDir())).toEqual([`${sessionId}.jsonl`]);
    const graph = await new SessionStore(storeDir()).loadSession(sessionId);
    expect(prompts(graph.pathTo(graph.leaf!))).toEqual(['list files in src', 'tell me a long story']);
  });
});
