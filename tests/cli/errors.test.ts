import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { CliProcess, makeWorkspace, runCli, sessionIdOf } from './cli-process.js';

let workspace: { dir: string; cleanup(): Promise<void> };

beforeAll(async () => {
  workspace = await makeWorkspace();
});
afterAll(async () => {
  await workspace.cleanup();
});

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('indusagi: bad command lines', () => {
  it('refuses an unknown command, flag or session in one line, exit 2, before creating anything', async () => {
    const cases: Array<[string[], string]> = [
      [['launch'], 'indusagi: unknown command "launch"; try "indusagi help"\n'],
      [
        ['sessions', 'show', 'missing'],
        `indusagi: no session "missing" in ${join(workspace.dir, '.indusagi', 'sessions')}; "indusagi sessions ls" lists them\n`,
      ],
      [['chat', '--sesion', 'x'], "indusagi: chat: Unknown option '--sesion'\n"],
      [['chat', 'hello'], 'indusagi: chat: unexpected argument "hello"\n'],
      [['chat', '--model'], "indusagi: chat: Option '--model <value>' argument missing\n"],
      [['chat', '--model', 'mistral:large'], 'indusagi: --model: unknown provider "mistral"; use anthropic:MODEL or openai:MODEL\n'],
      [['chat', '--model', 'openai:'], 'indusagi: --model openai:: the model id after "openai:" is empty\n'],
      [['chat', '--continue'], `indusagi: --continue: no session in ${join(workspace.dir, '.indusagi', 'sessions')} to continue\n`],
      [['chat', '--session', 'x', '--continue'], 'indusagi: --session and --continue both pick the session; give one\n'],
      [['--json'], 'indusagi: --json goes with -p PROMPT (a chat on a terminal prints for people)\n'],
      [['-p', ' '], 'indusagi: -p needs a value\n'],
      [
        ['sessions', 'rm', 'missing'],
        `indusagi: no session "missing" in ${join(workspace.dir, '.indusagi', 'sessions')}; "indusagi sessions ls" lists them\n`,
      ],
      [['-p', 'hi', '--session', '../up'], 'indusagi: Invalid session id "../up": it contains a path separator.\n'],
      [['help', 'launch'], 'indusagi: no help for "launch": not a command; try "indusagi help"\n'],
      [['chat', '--session', 'a/b'], 'indusagi: Invalid session id "a/b": it contains a path separator.\n'],
      // Flags alone are the chat's: one "indusagi:" prefix, not the command name again.
      [['-p', 'hi', '--bogus'], "indusagi: Unknown option '--bogus'\n"],
      [['--continue', 'extra'], 'indusagi: unexpected argument "extra"\n'],
    ];
    // A few at a time: every case is a whole CLI process, and a 2-core machine runs two at once.
    const runs = await inBatches(cases, 3, ([args]) => runCli(args, workspace.dir));
    runs.forEach((run, i) => {
      expect({ args: cases[i][0], code: run.code, stdout: run.stdout, stderr: run.stderr }).toEqual({
        args: cases[i][0],
        code: 2,
        stdout: '',
        stderr: cases[i][1],
      });
    });
    expect(await exists(join(workspace.dir, '.indusagi'))).toBe(false);

    const help = await runCli(['help'], workspace.dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('indusagi chat [--session ID | --continue] [--model M] [--store DIR|URL]');
    expect(help.stdout).toContain('/fork NODE');
  }, 300_000); // 18 processes at once: slow on a loaded two-core machine
});

describe('indusagi chat: bad input inside a chat', () => {
  it('reports each failed command in one line and goes on; nothing stored changes; a rejected write never runs', async () => {
    const cli = new CliProcess(['chat'], workspace.dir);
    cli.send('list files in src');
    cli.send('write "x" to out.txt');
    // Once the next prompt is echoed, the write's run is over and persisted.
    cli.send('what time is it?');
    await cli.waitFor(/› what time is it\?\n/);
    const sessionId = sessionIdOf(cli.stdout);
    const file = join(workspace.dir, '.indusagi', 'sessions', `${sessionId}.jsonl`);
    const before = await readFile(file);
    const graph = await new SessionStore(join(workspace.dir, '.indusagi', 'sessions')).loadSession(sessionId);
    const toolCallNode = graph.nodesTo(graph.leaf!)[1];

    for (const line of [
      '/fork 0000ffff',
      `/fork ${toolCallNode.id.slice(0, 10)}`,
      '/resume nobody',
      '/resume ../etc',
      '/approve toolu_nope',
      '/teleport',
      '/tree now',
    ]) {
      cli.send(line);
    }
    await cli.waitFor(/✗ error: \/tree takes no argument\n/);
    const errors = cli.stdout.split('\n').filter((line) => line.startsWith('✗'));
    expect(errors).toEqual([
      expect.stringMatching(
        /^✗ error: Session ".*" has 1 tool call\(s\) waiting for approval \(files\.write toolu_\S+\); approve or reject them before submitting\.$/,
      ),
      `✗ error: session ${sessionId} has no node 0000ffff`,
      `✗ error: Cannot branch session "${sessionId}": node ${toolCallNode.id} is a reply whose tool calls have no result there; branch from its results or from an answer.`,
      expect.stringMatching(/^✗ error: no session "nobody" in .*; "indusagi sessions ls" lists them$/),
      '✗ error: Invalid session id "../etc": it contains a path separator.',
      '✗ error: no waiting call has the id toolu_nope',
      '✗ error: unknown command /teleport; /help lists them',
      '✗ error: /tree takes no argument',
    ]);
    expect(await readFile(file)).toEqual(before);
    expect(await readdir(join(workspace.dir, '.indusagi', 'sessions'))).toEqual([`${sessionId}.jsonl`, `${sessionId}.lock`]);

    cli.send('/reject');
    const run = await cli.end();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('› /reject\n  ✗ files.write: The user rejected this tool call.\n');
    expect(run.stdout).toContain('(offline demo model) The files_write call did not go through: The user rejected this tool call.');
    expect(await exists(join(workspace.dir, 'out.txt'))).toBe(false);
    expect(await readdir(join(workspace.dir, '.indusagi', 'sessions'))).toEqual([`${sessionId}.jsonl`]);
  });
});

/** `work` over `items`, at most `size` at a time, results in order. */
async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return results;
}
