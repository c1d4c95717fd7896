import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, runCli, sessionIdOf } from './cli-process.js';
import { HOSTILE, STEERING } from './hostile-text.js';

// The real command, piped, with a file whose content (and a file whose name) carries terminal
// escapes: the chat, then every read-only view of the stored session, must print them as text.

describe('indusagi never hands a terminal escapes a model or a tool produced', () => {
  let workspace: { dir: string; cleanup(): Promise<void> };
  let sessionId: string;

  beforeAll(async () => {
    workspace = await makeWorkspace();
    await writeFile(join(workspace.dir, 'evil.txt'), `${HOSTILE}\nsecond line\n`);
    await writeFile(join(workspace.dir, `name\u001b]52;c;aGk=\u0007\n  ✓ fake.txt`), '');
  });
  afterAll(async () => {
    await workspace.cleanup();
  });

  it('in the chat, piped and with NO_COLOR', async () => {
    const run = await runCli(['chat'], workspace.dir, ['read evil.txt', 'list files'], { NO_COLOR: '1' });
    expect(run.code).toBe(0);
    sessionId = sessionIdOf(run.stdout);
    expect(run.stdout).not.toMatch(STEERING);
    expect(run.stdout).toContain('✓ files.read: \\x1b]52;c;ZWNobyBwd25lZAo=\\x07 \\x1b[1A\\x1b[2K');
    expect(run.stdout).toContain('reads:\n\\x1b]52;c;ZWNobyBwd25lZAo=\\x07');
    // The listing shows the planted name as one quoted entry, not as a fake line of its own.
    expect(run.stdout).not.toMatch(/^ {2}✓ fake\.txt/m);
    expect(run.stdout).toContain('"name\\u001b]52;c;aGk=\\u0007\\n  ✓ fake.txt"');
  });

  it('in sessions ls, show, tree and the Markdown export', async () => {
    const views = [['ls'], ['show', sessionId], ['tree', sessionId], ['export', sessionId]];
    for (const run of await Promise.all(views.map((args) => runCli(['sessions', ...args], workspace.dir)))) {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('evil.txt');
      expect(run.stdout).not.toMatch(STEERING);
    }
  });

  it('in the JSON export, which stays lossless', async () => {
    const run = await runCli(['sessions', 'export', sessionId, '--format', 'json'], workspace.dir);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(STEERING);
    const exported = JSON.parse(run.stdout) as { nodes: Array<{ turn: { blocks: Array<{ kind: string; content?: string }> } }> };
    const results = exported.nodes.flatMap((n) => n.turn.blocks).filter((b) => b.kind === 'tool_result');
    expect(results.map((b) => b.content)).toContain(`${HOSTILE}\nsecond line\n`);
  });
});
