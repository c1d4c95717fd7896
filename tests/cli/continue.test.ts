import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SessionStore, SessionWriter } from '../../src/runtime/store/index.js';
import { makeWorkspace, runCli } from './cli-process.js';

let workspace: { dir: string; cleanup(): Promise<void> };
beforeAll(async () => {
  workspace = await makeWorkspace();
});
afterAll(async () => {
  await workspace.cleanup();
});

it('says a resumed session was cut off mid-run, and /continue answers the call that may have run before the model goes on', async () => {
  // What a process killed while files.write ran leaves behind: the reply with its call, and no result.
  const store = new SessionStore(join(workspace.dir, '.indusagi', 'sessions'));
  const graph = await SessionWriter.open(store, 'cut');
  graph.append({ role: 'user', blocks: [{ kind: 'text', text: 'list files in src' }] }, 1);
  graph.append({ role: 'assistant', blocks: [{ kind: 'tool_call', id: 'toolu_cut', name: 'files.list', input: { path: 'src' } }] }, 2);
  await graph.close();

  const run = await runCli(['chat', '--session', 'cut'], workspace.dir, ['/continue']);

  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('! the last run stopped before its end; its tool calls files.list (may have run): /continue picks it up');
  expect(run.stdout).toMatch(/› \/continue\n {2}✗ files\.list: Interrupted: the run stopped/);
  const after = await store.loadSession('cut');
  const context = after.resume(after.leaf!);
  expect(context[2].blocks[0]).toMatchObject({ kind: 'tool_result', callId: 'toolu_cut', isError: true });
  expect(context.at(-1)?.role).toBe('assistant');
});
