// A tripped run is durable: another process, or a fresh store object over the same files, resumes the
// session knowing its last run tripped (which guardrail, why), and the next run starts cleanly.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SessionStore, createAgent } from '../../../src/entries/runtime.js';
import type { RunSnapshot } from '../../../src/entries/runtime.js';
import { reply, type AnthropicTestServer } from '../../../src/testing/index.js';
import { runJsonChild } from '../../support/child-process.js';
import { serverAndDirPerTest, type TempDir } from '../../support/server-and-dir.js';
import { tempDir } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/guardrail-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

type ChildResult = { pid: number; settled?: true; fault?: { kind: string; message: string; snapshot: RunSnapshot } };

let server: AnthropicTestServer;
let dir: TempDir;
serverAndDirPerTest(tempDir, (s, d) => ((server = s), (dir = d)));

describe('a tripped run across processes', () => {
  it('is known to the next process, which resumes where the session stood before it and runs on cleanly', async () => {
    const storeDir = join(dir.path, 'sessions');
    const markerFile = join(dir.path, 'commands.log');
    const base = { storeDir, sessionId: 'chat-1', baseURL: server.baseURL, markerFile };
    server.enqueue(reply.text('Hello! How can I help?'));
    const first = createAgent(
      { model: 'claude-haiku-4-5', sessionId: 'chat-1' },
      { store: new SessionStore(storeDir), client: server.client() },
    );
    await first.submit('hi');
    await first.close();

    server.enqueue(reply.tools([{ name: 'shell_run', input: { command: 'rm -rf ~/projects' }, id: 'toolu_rm' }], { text: 'Cleaning up.' }));
    const second = await runJsonChild<ChildResult>(fixture, { ...base, prompt: 'free up some space' }, { cwd: repoRoot });
    expect(second.fault).toMatchObject({ kind: 'guardrail_tripped' });
    const trip = second.fault!.snapshot.tripped!;
    expect(trip).toMatchObject({ guardrail: 'deny_tool_arguments', stage: 'tool_call', callId: 'toolu_rm', toolName: 'shell.run' });
    expect(existsSync(markerFile)).toBe(false);

    // This process, a fresh store object over the same files.
    server.enqueue(reply.text('Here is what takes the most space.'));
    const agent = createAgent(
      { model: 'claude-haiku-4-5', sessionId: 'chat-1' },
      { store: new SessionStore(storeDir), client: server.client() },
    );
    const resumed = await agent.resume('chat-1');
    expect(resumed).toMatchObject({ status: 'settled', text: 'Hello! How can I help?', tripped: trip });
    expect(resumed.messages).toEqual(second.fault!.snapshot.messages);
    expect(resumed.messages.map((turn) => turn.role)).toEqual(['user', 'assistant']);

    const next = await agent.submit('what takes the most space?');
    expect(next).toMatchObject({ status: 'settled', text: 'Here is what takes the most space.' });
    expect(next.tripped).toBeUndefined();
    // The model sees the conversation before the tripped run, then the new prompt: nothing of the tripped run.
    expect(server.requests.at(-1)!.body.messages.map((m: { content: Array<{ text?: string }> }) => m.content[0].text)).toEqual([
      'hi',
      'Hello! How can I help?',
      'what takes the most space?',
    ]);
    await agent.close();
    const again = createAgent({ model: 'claude-haiku-4-5' }, { store: new SessionStore(storeDir), client: server.client() });
    expect((await again.resume('chat-1')).tripped).toBeUndefined();
    await again.close();
  });
});
