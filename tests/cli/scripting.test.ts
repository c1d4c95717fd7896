import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { reply, startAnthropicServer } from '../../src/testing/index.js';
import { CliProcess, runCli, sessionIdOf, useWorkspace } from './cli-process.js';

// Each test spawns the command several times; on a loaded machine one spawn can take seconds.
const SLOW = 300_000;

const workspace = useWorkspace();
const { storeArgs } = workspace;

describe('indusagi --help', () => {
  it(
    'every command and sessions action answers --help (and help COMMAND) with its usage, exit 0',
    async () => {
      const cases: Array<[string[], string]> = [
        [['chat', '--help'], 'usage: indusagi chat [options]'],
        [['chat', '-h'], '-p, --print P    run the prompt P'],
        [['help', 'chat'], '  3   -p: the run stopped at a tool call waiting for approval'],
        [['--help'], 'indusagi -p PROMPT [--json]'],
        [['sessions', '--help'], 'indusagi sessions rm ID [--store DIR|URL]\n    deletes the session file'],
        [['sessions', 'ls', '--help'], 'usage: indusagi sessions ls [--store DIR|URL]\n'],
        [['sessions', 'show', 'x', '-h'], 'usage: indusagi sessions show ID [--store DIR|URL]\n'],
        [['sessions', 'tree', '--help'], 'usage: indusagi sessions tree ID'],
        [['sessions', 'export', '--help'], 'usage: indusagi sessions export ID [--format md|json]'],
        [
          ['sessions', 'rm', '--help'],
          'usage: indusagi sessions rm ID [--store DIR|URL]\n  deletes the session file; refused while a chat has the session open\n',
        ],
        [['-p', 'x', '--help'], 'usage: indusagi chat [options]'],
        [['memory', '--help'], 'usage:\n  indusagi memory ls [--all]'],
        [['memory', 'rm', '--help'], 'usage:\n  indusagi memory rm ID [--memory FILE|URL] [--resource R] [--session S]\n'],
        [['db', 'migrate', '-h'], 'usage:\n  indusagi db migrate [--database URL] [--schema NAME]\n'],
      ];
      const runs = await Promise.all(cases.map(([args]) => runCli(args, workspace.dir)));
      runs.forEach((run, i) => {
        expect({ args: cases[i][0], code: run.code, stderr: run.stderr }).toEqual({ args: cases[i][0], code: 0, stderr: '' });
        expect(run.stdout).toContain(cases[i][1]);
      });
      // Nothing was run: no store was made.
      expect(await readdir(workspace.dir)).toEqual(['src']);
    },
    SLOW,
  );
});

describe('indusagi -p', () => {
  it(
    'prints the final answer alone, exits 0, and stores the run in a new session',
    async () => {
      const { args, store } = storeArgs();
      const run = await runCli(['-p', 'list files in src', ...args], workspace.dir);
      expect(run).toMatchObject({ code: 0, stderr: '', stdout: '(offline demo model) src holds:\ngreeting.txt\n' });
      const [session] = await store.listSessions();
      const graph = await store.loadSession(session.id);
      expect(graph.size).toBe(4);
    },
    SLOW,
  );

  it(
    'reads the prompt from stdin with "-p -"',
    async () => {
      const { args } = storeArgs();
      const run = await runCli(['-p', '-', ...args], workspace.dir, ['read src/greeting.txt']);
      expect(run).toMatchObject({ code: 0, stdout: '(offline demo model) src/greeting.txt reads:\nhello from the workspace\n' });
    },
    SLOW,
  );

  it(
    'exits 3 when the run stops at a call waiting for approval, naming the session to approve it in',
    async () => {
      const { args, store } = storeArgs();
      const run = await runCli(['-p', 'write hi to notes.txt', '--session', 'drafts', ...args], workspace.dir);
      expect(run.code).toBe(3);
      expect(run.stdout).toBe('(offline demo model) Writing 2 characters to notes.txt; that needs your approval.\n');
      expect(run.stderr).toMatch(/^indusagi: files\.write \{"path":"notes\.txt","content":"hi"\} needs approval \(toolu_\S+\)\n/);
      expect(run.stderr).toContain(
        'indusagi: session drafts waits for approval; run "indusagi chat --session drafts" and /approve or /reject\n',
      );
      expect((await store.loadSession('drafts')).size).toBe(2);
      expect(await readdir(workspace.dir)).not.toContain('notes.txt');
    },
    SLOW,
  );

  it(
    'exits 1 with the reason on stderr when the model call fails',
    async () => {
      const server = await startAnthropicServer();
      try {
        server.enqueue(reply.httpError(400, { message: 'prompt is malformed' }));
        const { args } = storeArgs();
        const run = await runCli(['-p', 'hello', ...args], workspace.dir, [], {
          ANTHROPIC_API_KEY: 'sk-test',
          ANTHROPIC_BASE_URL: server.baseURL,
        });
        expect(run.code).toBe(1);
        expect(run.stdout).toBe('');
        expect(run.stderr).toMatch(/^indusagi: run failed \(model_error\): .*prompt is malformed/);
      } finally {
        await server.close();
      }
    },
    SLOW,
  );

  it(
    'says so on stderr when an overloaded API is retried, and still prints the answer',
    async () => {
      const server = await startAnthropicServer();
      try {
        server.enqueue(reply.httpError(529, { headers: { 'retry-after-ms': '1000' } }), reply.text('Made it.'));
        const { args } = storeArgs();
        const run = await runCli(['-p', 'hello', ...args], workspace.dir, [], {
          ANTHROPIC_API_KEY: 'sk-test',
          ANTHROPIC_BASE_URL: server.baseURL,
        });
        expect(run).toMatchObject({
          code: 0,
          stdout: 'Made it.\n',
          stderr: 'indusagi: overloaded (HTTP 529), retrying in 1 s (attempt 2)\n',
        });
      } finally {
        await server.close();
      }
    },
    SLOW,
  );
});

describe('indusagi -p --json', () => {
  it(
    'writes every run event as one JSON line, in order, ending with the settled snapshot',
    async () => {
      const { args } = storeArgs();
      const run = await runCli(['-p', 'list files in src', '--json', ...args], workspace.dir);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('');
      const lines = run.stdout.trimEnd().split('\n');
      const events = lines.map((line) => JSON.parse(line) as { kind: string; [key: string]: unknown });
      const kinds = events.map((e) => e.kind);
      expect(kinds[0]).toBe('session_opened');
      expect(kinds).toContain('run_started');
      expect(kinds.filter((k) => k === 'tool_started')).toHaveLength(1);
      expect(kinds.filter((k) => k === 'usage')).toHaveLength(2);
      expect(kinds.at(-1)).toBe('settled');
      expect(events.find((e) => e.kind === 'tool_finished')).toMatchObject({ name: 'files.list', result: 'greeting.txt', isError: false });
      const text = events
        .filter((e) => e.kind === 'text_delta')
        .map((e) => e.delta)
        .join('');
      expect(text).toBe('(offline demo model) Listing src.(offline demo model) src holds:\ngreeting.txt');
      expect(events.at(-1)).toMatchObject({ snapshot: { status: 'settled', text: '(offline demo model) src holds:\ngreeting.txt' } });
    },
    SLOW,
  );

  it(
    'exits 3 on a call waiting for approval, with the approval_requested event in the stream',
    async () => {
      const { args } = storeArgs();
      const run = await runCli(['-p', 'write hi to notes.txt', '--json', ...args], workspace.dir);
      expect(run.code).toBe(3);
      const kinds = run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { kind: string }).kind);
      expect(kinds).toContain('approval_requested');
      expect(kinds.at(-1)).toBe('settled');
    },
    SLOW,
  );
});

describe('indusagi --continue and --session', () => {
  it(
    '--continue picks the most recently changed session, in -p and in a chat',
    async () => {
      const { args, store } = storeArgs();
      await runCli(['-p', 'list files in src', '--session', 'older', ...args], workspace.dir);
      const first = await runCli(['-p', 'what time is it?', ...args], workspace.dir);
      expect(first.code).toBe(0);
      const [latest] = await store.listSessions();
      expect(latest.id).not.toBe('older');

      const again = await runCli(['-c', '-p', 'read src/greeting.txt', ...args], workspace.dir);
      expect(again).toMatchObject({ code: 0, stdout: '(offline demo model) src/greeting.txt reads:\nhello from the workspace\n' });
      expect((await store.loadSession(latest.id)).size).toBe(8);
      expect((await store.listSessions()).map((s) => s.id).sort()).toEqual(['older', latest.id].sort());

      const chat = await runCli(['chat', '--continue', ...args], workspace.dir, ['/exit']);
      expect(chat.code).toBe(0);
      expect(sessionIdOf(chat.stdout)).toBe(latest.id);
      expect(chat.stdout).toContain(`resumed session ${latest.id}: 8 turns in context`);
    },
    SLOW,
  );

  it(
    '--session NEW-ID starts a session under that name; the next run with it goes on there',
    async () => {
      const { args, store } = storeArgs();
      const chat = await runCli(['chat', '--session', 'release-notes', ...args], workspace.dir, ['what time is it?']);
      expect(chat.code).toBe(0);
      expect(sessionIdOf(chat.stdout)).toBe('release-notes');
      expect(chat.stdout).not.toContain('resumed session');
      const later = await runCli(['chat', '--session', 'release-notes', ...args], workspace.dir, []);
      expect(later.stdout).toContain('resumed session release-notes: 4 turns in context');
      expect((await store.listSessions()).map((s) => s.id)).toEqual(['release-notes']);
    },
    SLOW,
  );
});

describe('indusagi sessions rm', () => {
  it(
    'deletes a session, and refuses while a chat holds it open',
    async () => {
      const { args, store } = storeArgs();
      await runCli(['-p', 'what time is it?', '--session', 'gone', ...args], workspace.dir);
      await runCli(['-p', 'what time is it?', '--session', 'busy', ...args], workspace.dir);

      const chat = new CliProcess(['chat', '--session', 'busy', ...args], workspace.dir);
      chat.send('list files in src');
      await chat.waitFor(/src holds:/);
      const refused = await runCli(['sessions', 'rm', 'busy', ...args], workspace.dir);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^indusagi: .*busy.*locked|^indusagi: .*busy.*pid/i);
      chat.send('/exit');
      await chat.end();

      const removed = await runCli(['sessions', 'rm', 'gone', ...args], workspace.dir);
      expect(removed).toMatchObject({ code: 0, stdout: 'removed session gone (4 nodes)\n', stderr: '' });
      expect((await store.listSessions()).map((s) => s.id)).toEqual(['busy']);
      expect((await store.loadSession('busy')).size).toBe(8);
    },
    SLOW,
  );
});
