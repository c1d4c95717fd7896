import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { makeWorkspace, runCli, sessionIdOf } from './cli-process.js';

// One conversation carried across processes the way a user would: the second step resumes the
// session the first one left on disk.
describe('indusagi chat with the offline demo model, piped', () => {
  let workspace: { dir: string; cleanup(): Promise<void> };
  let sessionId: string;
  const store = () => new SessionStore(join(workspace.dir, '.indusagi', 'sessions'));

  beforeAll(async () => {
    workspace = await makeWorkspace();
  });
  afterAll(async () => {
    await workspace.cleanup();
  });

  it('runs tools, streams replies, and asks before writing', async () => {
    const run = await runCli(['chat'], workspace.dir, [
      'list files in src',
      'remember that the deploy key lives in the vault',
      'write "first draft" to notes/plan.txt',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    sessionId = sessionIdOf(run.stdout);
    expect(run.stdout).toContain('the offline demo model, a scripted stand-in for Claude');

    expect(run.stdout).toContain(
      '› list files in src\n(offline demo model) Listing src.\n  ⚙ files.list {"path":"src"}\n  ✓ files.list: greeting.txt\n',
    );
    expect(run.stdout).toContain('(offline demo model) src holds:\ngreeting.txt\n');
    expect(run.stdout).toContain('✓ memory.remember: Saved to memory: the deploy key lives in the vault');
    expect(run.stdout).toMatch(
      /\? files\.write \{"path":"notes\/plan\.txt","content":"first draft"\} needs your approval: \/approve (toolu_\S+) or \/reject \1\n$/,
    );
    expect(await readdir(workspace.dir)).not.toContain('notes');
    expect(await readdir(join(workspace.dir, '.indusagi', 'sessions'))).toEqual([`${sessionId}.jsonl`]);
  });

  it('resumes in a second process (pending write and memory included), forks, draws the tree, and condenses on /compact', async () => {
    const before = await store().loadSession(sessionId);
    // The first plain answer: list files in src -> tool call -> result -> this.
    const answer = before.nodesTo(before.leaf!)[3];
    expect(answer.turn).toMatchObject({
      role: 'assistant',
      blocks: [{ kind: 'text', text: '(offline demo model) src holds:\ngreeting.txt' }],
    });

    const run = await runCli(['chat', '--session', sessionId], workspace.dir, [
      '/approve',
      'what do you remember about the deploy key?',
      `/fork ${answer.id.slice(0, 6)}`,
      'read src/greeting.txt',
      '/tree',
      'what time is it?',
      '/compact',
      `/resume ${sessionId}`,
      '/sessions',
      '/help',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /resumed session \S+: 10 turns in context\n {2}\? files\.write \{"path":"notes\/plan\.txt","content":"first draft"\} waits for approval/,
    );
    expect(run.stdout).toContain(
      '› /approve\n  ⚙ files.write {"path":"notes/plan.txt","content":"first draft"}\n  ✓ files.write: Wrote 11 bytes to notes/plan.txt\n',
    );
    expect(await readFile(join(workspace.dir, 'notes', 'plan.txt'), 'utf8')).toBe('first draft');
    expect(run.stdout).toContain('✓ memory.recall: - the deploy key lives in the vault');
    expect(run.stdout).toContain(`forked: the next prompt continues after ${answer.id.slice(0, 8)}`);
    expect(run.stdout).toContain('(offline demo model) src/greeting.txt reads:\nhello from the workspace');

    const tree = run.stdout
      .slice(run.stdout.indexOf('› /tree\n') + '› /tree\n'.length, run.stdout.indexOf('› what time is it?'))
      .trimEnd()
      .split('\n');
    expect(tree[3]).toBe(`${answer.id.slice(0, 8)} assistant (offline demo model) src holds: greeting.txt`);
    const branchStarts = tree.filter((l) => /^[├└]─ /.test(l));
    expect(branchStarts).toEqual([
      expect.stringMatching(/^├─ \S{8} user {6}remember that the deploy key lives in the vault$/),
      expect.stringMatching(/^└─ \S{8} user {6}read src\/greeting\.txt$/),
    ]);
    expect(tree.filter((l) => l.endsWith('◀ live'))).toEqual([
      expect.stringMatching(/^ {3}\S{8} assistant \(offline demo model\) src\/greeting\.txt reads: hello from the workspace {2}◀ live$/),
    ]);
    expect(tree.filter((l) => l.endsWith('(tip)'))).toHaveLength(1);

    // The live branch held 12 turns (three exchanges with a tool call each); the demo keeps 4 verbatim.
    // (Four turns alone are too few: their summary would not be smaller, and nothing is condensed.)
    expect(run.stdout).toMatch(/› \/compact\n {2}⟳ condensed 8 earlier turns into a summary \(~(\d+) → ~(\d+) tokens\)/);
    const [, tokensBefore, tokensAfter] = run.stdout.match(/⟳ condensed 8 earlier turns into a summary \(~(\d+) → ~(\d+) tokens\)/)!;
    expect(Number(tokensAfter)).toBeLessThan(Number(tokensBefore));
    const after = await store().loadSession(sessionId);
    const context = after.contextTo(after.leaf!);
    expect(context).toHaveLength(5);
    expect(context[0].blocks[0]).toMatchObject({
      kind: 'text',
      text: expect.stringMatching(/^\[condensed earlier context\]\n\(offline demo model\) Summary/),
    });
    expect(context[0].blocks[0]).toMatchObject({ text: expect.stringContaining('User: list files in src') });
    expect(after.pathTo(after.leaf!)).toHaveLength(13);

    expect(run.stdout).toContain(`› /resume ${sessionId}\nswitched to session ${sessionId}: 5 turns in context\n`);
    expect(run.stdout).toMatch(
      new RegExp(`› /sessions\\n${sessionId}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +25 nodes  leaf \\S{8}  list files in src\\n`),
    );
    expect(run.stdout).toMatch(/› \/help\n\/sessions {8}list stored sessions\n[^]*\/fork NODE/);
  });
});

describe('/model, piped', () => {
  it('lists the models, refuses one whose key is missing, and switches to another the session goes on with', async () => {
    const workspace = await makeWorkspace();
    try {
      const run = await runCli(['chat', '--session', 'switching'], workspace.dir, [
        'what time is it?',
        '/model',
        '/model openai:gpt-5.4',
        '/model demo',
        'what time is it?',
      ]);
      expect(run.stderr).toBe('');
      // The refused switch is a failed command: exit 1, as any failed command piped.
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/› \/model\n {2}anthropic:claude-opus-5-5 {2}\(needs ANTHROPIC_API_KEY\)\n/);
      expect(run.stdout).toContain('  offline demo model\nswitch with /model PROVIDER:MODEL, or /model demo\n');
      expect(run.stdout).toContain('› /model openai:gpt-5.4\n✗ error: openai:gpt-5.4 needs OPENAI_API_KEY\n');
      expect(run.stdout).toMatch(
        /› \/model demo\nnow talking to the offline demo model, .*\n› what time is it\?\n\(offline demo model\) Checking the clock\./,
      );
      const graph = await new SessionStore(join(workspace.dir, '.indusagi', 'sessions')).loadSession('switching');
      expect(graph.nodesTo(graph.leaf!).filter((n) => n.turn.role === 'user' && n.turn.blocks[0].kind === 'text')).toHaveLength(2);
    } finally {
      await workspace.cleanup();
    }
  }, 300_000);
});
