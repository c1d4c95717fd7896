import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore, SessionWriter } from '../../src/runtime/store/index.js';
import type { Turn } from '../../src/runtime/contract/index.js';
import { runCli, useWorkspace } from './cli-process.js';

// `indusagi -p` on a session a crash or an edit damaged: it says what the load left out, as the chat
// does, and does not silently fork a session whose live leaf had to fall back to an older node.
const SLOW = 300_000;
const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });

const workspace = useWorkspace();
/**
 * A session whose latest node is a summary that keeps its tail from a node that is not its ancestor
 * (its `firstKept` was damaged): the load skips it and the live leaf falls back to the answer before it.
 */
async function damagedSession(): Promise<{ args: string[]; file: string; summary: string; fallback: string }> {
  const { args, dir, store: sessions } = workspace.storeArgs();
  const session = await SessionWriter.open(sessions, 'hurt');
  let at = 1_700_000_000_000;
  session.append(say('user', 'first question'), at++);
  session.append(say('assistant', 'first answer'), at++);
  const kept = session.append(say('user', 'second question'), at++);
  const answer = session.append(say('assistant', 'second answer'), at++);
  const summary = session.append(say('user', '[condensed earlier context]\nThe user asked twice.'), at++, {
    condenses: { firstKept: kept.id },
  });
  await session.close();
  const file = join(dir, 'hurt.jsonl');
  await writeFile(file, (await readFile(file, 'utf8')).replace(`"firstKept":"${kept.id}"`, `"firstKept":"${'0'.repeat(64)}"`));
  return {
    args: ['--session', 'hurt', ...args],
    file,
    summary: summary.id,
    fallback: answer.id,
  };
}

describe('indusagi -p on a damaged session', () => {
  it(
    'prints what the load left out on stderr and refuses to append after a fallen-back leaf (exit 1, file untouched)',
    async () => {
      const { args, file, summary, fallback } = await damagedSession();
      const before = await readFile(file, 'utf8');
      const run = await runCli(['-p', 'hi', ...args], workspace.dir);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`indusagi: session hurt: 1 damaged line(s) were skipped: line 5 (condensation summary ${summary}`);
      expect(run.stderr).toContain(
        `indusagi: session hurt: the latest turn (${summary.slice(0, 8)}) could not be read; the conversation continues from node ${fallback.slice(0, 8)}\n`,
      );
      expect(run.stderr).toMatch(/indusagi: not appending to session hurt: .*--force/);
      expect(await readFile(file, 'utf8')).toBe(before);
    },
    SLOW,
  );

  it(
    'with --force goes on from the node the load fell back to, still saying so; --json carries the load report',
    async () => {
      const { args, file, fallback } = await damagedSession();
      const json = await runCli(['-p', 'hi', '--json', ...args], workspace.dir);
      expect(json.code).toBe(1);
      const opened = JSON.parse(json.stdout.split('\n')[0]);
      expect(opened).toMatchObject({ kind: 'session_opened', sessionId: 'hurt', report: { leafFallback: { restored: fallback } } });
      expect(opened.report.skipped).toHaveLength(1);

      const forced = await runCli(['-p', 'hi', '--force', ...args], workspace.dir);
      expect(forced.code).toBe(0);
      expect(forced.stdout).toMatch(/^\(offline demo model\) /);
      expect(forced.stderr).toContain('could not be read; the conversation continues from node');
      expect(forced.stderr).not.toContain('not appending');
      const graph = await new SessionStore(join(file, '..')).loadSession('hurt');
      const path = graph.nodesTo(graph.leaf!);
      expect(path.map((n) => n.turn.blocks[0].kind === 'text' && n.turn.blocks[0].text).slice(-3)).toEqual([
        'second answer',
        'hi',
        expect.stringMatching(/^\(offline demo model\)/),
      ]);
      expect(path.at(-3)!.id).toBe(fallback);
    },
    SLOW,
  );

  it(
    'a torn last line that leaves the live leaf where it was is reported and the run goes on (exit 0)',
    async () => {
      const store = workspace.storeArgs();
      const session = await SessionWriter.open(store.store, 'clean');
      session.append(say('user', 'a question'), 1);
      session.append(say('assistant', 'an answer'), 2);
      await session.close();
      await appendFile(join(store.dir, 'clean.jsonl'), '{"type":"node","node":{"id":"ab');
      const args = ['--session', 'clean', ...store.args];
      const run = await runCli(['-p', 'hi', ...args], workspace.dir);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe('indusagi: session clean: the last line was cut short by a crash and was left out\n');
      expect(run.stdout).toMatch(/^\(offline demo model\) /);
    },
    SLOW,
  );
});
