import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore, SessionWriter } from '../../src/runtime/store/index.js';
import type { SessionNode, Turn } from '../../src/runtime/contract/index.js';
import { makeWorkspace, runCli } from './cli-process.js';

const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });

let workspace: { dir: string; cleanup(): Promise<void> };
let store: string;
const nodes: Record<string, SessionNode> = {};

// A session written through the store itself: a tool exchange, a branch, and a condensation summary.
beforeAll(async () => {
  workspace = await makeWorkspace();
  store = join(workspace.dir, 'store');
  const sessions = new SessionStore(store);
  const graph = await SessionWriter.open(sessions, 'demo');
  let at = 1_700_000_000_000;
  nodes.ask = graph.append(say('user', 'read notes.md'), at++);
  nodes.call = graph.append(
    { role: 'assistant', blocks: [{ kind: 'tool_call', id: 't1', name: 'files.read', input: { path: 'notes.md' } }] },
    at++,
  );
  nodes.result = graph.append({ role: 'user', blocks: [{ kind: 'tool_result', callId: 't1', content: 'line with ``` fence' }] }, at++);
  nodes.answer = graph.append(say('assistant', 'It has one line.'), at++);
  nodes.old = graph.append(say('user', 'old branch question'), at++);
  graph.graph.branchFrom(nodes.answer.id);
  nodes.fresh = graph.append(say('user', 'new branch question'), at++);
  nodes.reply = graph.append(say('assistant', 'new branch answer'), at++);
  nodes.summary = graph.append(say('user', '[condensed earlier context]\nThe user read notes.md.'), at++, {
    condenses: { firstKept: nodes.fresh.id },
  });
  await graph.persist();
  await graph.close();
});
afterAll(async () => {
  await workspace.cleanup();
});

const cli = (...args: string[]) => runCli([...args, '--store', store], workspace.dir);

describe('indusagi sessions', () => {
  it('ls: one line per session with its size, live leaf and first prompt', async () => {
    const run = await cli('sessions', 'ls');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^demo  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d +8 nodes  leaf ${nodes.summary.id.slice(0, 8)}  read notes\\.md\\n$`),
    );
  });

  it('tree: branches drawn, summary labelled, live leaf and the other tip marked', async () => {
    const run = await cli('sessions', 'tree', 'demo');
    const id = (name: string) => nodes[name].id.slice(0, 8);
    expect(run.stdout).toBe(
      [
        `${id('ask')} user      read notes.md`,
        `${id('call')} assistant → files.read({"path":"notes.md"})`,
        `${id('result')} user      ← line with \`\`\` fence`,
        `${id('answer')} assistant It has one line.`,
        `├─ ${id('old')} user      old branch question  (tip)`,
        `└─ ${id('fresh')} user      new branch question`,
        `   ${id('reply')} assistant new branch answer`,
        `   ${id('summary')} user      [summary] The user read notes.md.  ◀ live`,
        '',
      ].join('\n'),
    );
  });

  it('show: the live branch as a transcript', async () => {
    const run = await cli('sessions', 'show', 'demo');
    expect(run.stdout.split('\n').slice(0, 4)).toEqual([
      `session demo: 8 nodes, 2 branch ends, live leaf ${nodes.summary.id.slice(0, 8)}`,
      '',
      `${nodes.ask.id.slice(0, 8)} user`,
      '  read notes.md',
    ]);
    expect(run.stdout).toContain('new branch question');
    expect(run.stdout).toContain('(summary of earlier turns)');
    expect(run.stdout).not.toContain('old branch question');
  });

  it('export: Markdown of the live branch with fences that survive backticks; JSON of every node', async () => {
    const md = (await cli('sessions', 'export', 'demo')).stdout;
    expect(md.startsWith('# Session demo\n\nExported by indusagi: the live branch, 7 turns')).toBe(true);
    expect(md).toContain('**Tool result**\n\n````\nline with ``` fence\n````');
    expect(md).toContain(`## User (summary of earlier turns) · \`${nodes.summary.id.slice(0, 8)}\``);
    expect(md).not.toContain('old branch question');

    const json = JSON.parse((await cli('sessions', 'export', 'demo', '--format', 'json')).stdout);
    expect(json.leaf).toBe(nodes.summary.id);
    expect(json.nodes).toHaveLength(8);
    expect(json.nodes.find((n: SessionNode) => n.id === nodes.old.id)).toEqual(nodes.old);
    expect(json.nodes.find((n: SessionNode) => n.id === nodes.summary.id).condenses).toEqual({ firstKept: nodes.fresh.id });
  });

  it('refuses unknown ids, actions, flags and formats in one line, exit 2, touching nothing', async () => {
    const before = await readFile(join(store, 'demo.jsonl'));
    const cases: Array<[string[], RegExp]> = [
      [['sessions', 'show', 'nope'], /^indusagi: no session "nope" in .*store; "indusagi sessions ls" lists them\n$/],
      [['sessions', 'tree', '../demo'], /^indusagi: Invalid session id "\.\.\/demo": it contains a path separator\.\n$/],
      [['sessions', 'export', 'demo', '--format', 'pdf'], /^indusagi: --format must be "md" or "json", not "pdf"\n$/],
      [['sessions', 'prune'], /^indusagi: unknown sessions action "prune"; use ls, show, tree, export or rm\n$/],
      [['sessions', 'show'], /^indusagi: sessions show needs a session id\n$/],
      [['sessions', 'ls', '--all'], /^indusagi: sessions ls: Unknown option '--all'\n$/],
    ];
    const runs = await Promise.all(cases.map(([args]) => cli(...args)));
    runs.forEach((run, i) => {
      const [args, message] = cases[i];
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(message);
    });
    expect(await readFile(join(store, 'demo.jsonl'))).toEqual(before);
    expect(await readdir(store)).toEqual(['demo.jsonl']);
  });
});
