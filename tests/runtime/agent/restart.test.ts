import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../../src/entries/runtime.js';
import { runJsonChild } from '../../support/child-process.js';
import { serverAndDirPerTest, type TempDir } from '../../support/server-and-dir.js';
import { reply, type AnthropicTestServer } from '../../../src/testing/index.js';
import { tempDir } from './helpers.js';

const fixture = fileURLToPath(new URL('./fixtures/agent-process.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

type ChildResult = { pid: number; snapshots: RunSnapshot[]; error?: { name: string; kind: string; message: string } };

/** Runs part of the conversation in a fresh Node process (spawned async, so this process's server answers it). */
function inChild(args: Record<string, unknown>): Promise<ChildResult> {
  return runJsonChild<ChildResult>(fixture, args, { cwd: repoRoot });
}

let server: AnthropicTestServer;
let dir: TempDir;
serverAndDirPerTest(tempDir, (s, d) => ((server = s), (dir = d)));

describe('a conversation across processes', () => {
  it('waits for approval in one process; a second process resumes it, approves, and continues the conversation', async () => {
    const marker = join(dir.path, 'deletions.log');
    const base = { storeDir: join(dir.path, 'sessions'), sessionId: 'chat-1', baseURL: server.baseURL, markerFile: marker };

    server.enqueue(reply.tools([{ name: 'files_delete', input: { path: 'a.txt' }, id: 'toolu_del' }], { text: 'I will delete it.' }));
    const first = await inChild({ ...base, actions: [{ submit: 'delete a.txt' }] });
    expect(first.error).toBeUndefined();
    expect(first.snapshots[1]).toMatchObject({
      status: 'waiting',
      pendingApprovals: [{ approvalId: 'toolu_del', name: 'files.delete', input: { path: 'a.txt' } }],
    });
    expect(existsSync(marker)).toBe(false);

    server.enqueue(reply.text('Deleted a.txt.'), reply.text('There is nothing else to delete.'));
    const second = await inChild({ ...base, actions: [{ approve: 'toolu_del' }, { submit: 'anything else?' }] });
    expect(second.error).toBeUndefined();
    expect(second.pid).not.toBe(first.pid);
    const [resumed, approved, continued] = second.snapshots;
    expect(resumed).toMatchObject({ status: 'waiting', pendingApprovals: first.snapshots[1].pendingApprovals });
    expect(resumed.messages).toEqual(first.snapshots[1].messages);
    expect(approved).toMatchObject({ status: 'settled', text: 'Deleted a.txt.', pendingApprovals: [] });
    expect(continued).toMatchObject({ status: 'settled', text: 'There is nothing else to delete.' });
    // Ran once, in the process that approved it.
    expect(readFileSync(marker, 'utf8').trim().split('\n')).toEqual([`deleted a.txt in ${second.pid}`]);

    const afterApproval = server.requests[1].body.messages;
    expect(afterApproval.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(afterApproval[1].content[1]).toEqual({ type: 'tool_use', id: 'toolu_del', name: 'files_delete', input: { path: 'a.txt' } });
    expect(afterApproval[2].content).toMatchObject([{ type: 'tool_result', tool_use_id: 'toolu_del', content: 'deleted a.txt' }]);
    const laterTurn = server.requests[2].body.messages;
    expect(laterTurn).toHaveLength(5);
    expect(laterTurn[3]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Deleted a.txt.' }] });
    expect(laterTurn[4]).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'anything else?' }] });
  });
});
