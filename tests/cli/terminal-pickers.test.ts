import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { reply, startAnthropicServer } from '../../src/testing/index.js';
import { makeWorkspace, runCli, useWorkspace } from './cli-process.js';
import { PtyCli } from './pty.js';
import { idle, modalRows, statusText } from './screen-helpers.js';

// The pickers of a chat on a terminal, driven by arrow keys, and `@` completion in the editor.
const SLOW = 300_000;
const DOWN = '\x1b[B';
const UP = '\x1b[A';

const workspace = useWorkspace();
const { storeArgs } = workspace;

/** The selected row of the open picker (marked `›`). */
const selected = (rows: string[]) => rows.find((row) => row.startsWith('› '));

describe('pickers on a terminal', () => {
  it(
    '/resume: the other sessions newest first; Down and Enter open one and show its last turns; Escape stays',
    async () => {
      const { args } = storeArgs();
      await runCli(['-p', 'list files in src', '--session', 'alpha', ...args], workspace.dir);
      await runCli(['-p', 'what time is it?', '--session', 'beta', ...args], workspace.dir);
      const cli = new PtyCli(['chat', '--session', 'gamma', ...args], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);

      cli.type('/resume\r');
      await cli.waitForScreen('the picker', (s) => modalRows(s, /^resume which session\?$/).length > 0);
      const rows = modalRows(cli.screen, /^resume which session\?$/);
      expect(rows[1]).toMatch(/^› beta .* what time is it\?$/);
      expect(rows[2]).toMatch(/^ {2}alpha .* list files in src$/);
      expect(rows.at(-1)).toBe('↑↓ move · Enter choose · Esc cancel');
      cli.type(DOWN);
      await cli.waitForScreen('alpha selected', (s) => selected(modalRows(s, /^resume which session\?$/))?.startsWith('› alpha') === true);
      cli.type('\r');
      await cli.waitForScreen(
        'alpha opened',
        (s) =>
          s.all().includes('switched to session alpha: 4 turns in context') &&
          s.all().includes('  the last 3 turns:') &&
          statusText(s).includes('session alpha'),
      );
      const all = cli.screen.all();
      const at = all.indexOf('  the last 3 turns:');
      expect(all.slice(at + 1, at + 4)).toEqual([
        '  you › list files in src',
        '     ‹ (offline demo model) Listing src. → files.list({"path":"src"})',
        '     ‹ (offline demo model) src holds: greeting.txt',
      ]);

      cli.type('/resume\r');
      await cli.waitForScreen('the picker again', (s) => modalRows(s, /^resume which session\?$/).length > 0);
      cli.type('\x1b');
      await cli.waitForScreen('the picker closed', (s) => s.all().includes('staying on session alpha') && idle(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
    },
    SLOW,
  );

  it(
    '/tree: opens on the live leaf; Up to an earlier answer and Enter continue from there; the next prompt starts a branch',
    async () => {
      const { args, dir } = storeArgs();
      const cli = new PtyCli(['chat', '--session', 'branchy', ...args], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);
      cli.type('what time is it?\r');
      await cli.waitForScreen('the first answer', (s) => s.all().some((l) => l.includes('The clock tool says')) && idle(s));
      cli.type('list files in src\r');
      await cli.waitForScreen('the second answer', (s) => s.all().some((l) => l.includes('src holds:')) && idle(s));

      cli.type('/tree\r');
      const title = /^session branchy: Enter continues from the node chosen$/;
      await cli.waitForScreen('the tree', (s) => modalRows(s, title).length > 0);
      expect(selected(modalRows(cli.screen, title))).toMatch(/assistant \(offline demo model\) src holds: greeting\.txt {2}◀ live$/);
      cli.type(UP.repeat(4));
      await cli.waitForScreen('the first answer selected', (s) => /The clock tool says/.test(selected(modalRows(s, title)) ?? ''));
      cli.type('\r');
      await cli.waitForScreen('the fork', (s) => s.all().some((l) => l.startsWith('forked: the next prompt continues after')) && idle(s));
      cli.type('read src/greeting.txt\r');
      await cli.waitForScreen('the answer on the new branch', (s) => s.all().some((l) => l.includes('src/greeting.txt reads:')) && idle(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);

      const graph = await new SessionStore(dir).loadSession('branchy', { whole: true });
      const prompts = graph
        .nodesTo(graph.leaf!)
        .filter((n) => n.turn.role === 'user' && n.turn.blocks[0].kind === 'text')
        .map((n) => (n.turn.blocks[0] as { text: string }).text);
      expect(prompts).toEqual(['what time is it?', 'read src/greeting.txt']);
      expect(graph.tips()).toHaveLength(2);
    },
    SLOW,
  );

  it(
    '/model: every carded model, those without their key not choosable; Down and Enter switch, and the next call goes to it',
    async () => {
      const server = await startAnthropicServer();
      try {
        server.enqueue(reply.text('From haiku.'));
        const { args } = storeArgs();
        const env = { NO_COLOR: '1', ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.baseURL };
        const cli = new PtyCli(['chat', ...args], workspace.dir, env, { cols: 100, rows: 40 });
        await cli.waitForScreen('the first prompt', (s) => idle(s) && statusText(s).startsWith('claude-sonnet-5-5'));
        cli.type('/model\r');
        const title = /^switch to which model\?$/;
        await cli.waitForScreen('the picker', (s) => modalRows(s, title).length > 0);
        const rows = modalRows(cli.screen, title);
        expect(selected(rows)).toBe('› anthropic:claude-sonnet-5-5  1000K window');
        expect(rows).toContain('  anthropic:claude-haiku-5-5  200K window');
        cli.type(DOWN.repeat(40));
        await cli.waitForScreen(
          'the last row',
          (s) => selected(modalRows(s, title)) === '› offline demo model  a scripted stand-in, no key or network',
        );
        // OpenAI's models need OPENAI_API_KEY: shown, but the selection passes over them.
        expect(modalRows(cli.screen, title).some((row) => /^ {2}openai:.*needs OPENAI_API_KEY$/.test(row))).toBe(true);
        cli.type('\x1b[H'); // Home
        cli.type(DOWN.repeat(2));
        await cli.waitForScreen(
          'haiku selected',
          (s) => selected(modalRows(s, title))?.startsWith('› anthropic:claude-haiku-5-5') === true,
        );
        cli.type('\r');
        await cli.waitForScreen(
          'the switch',
          (s) =>
            s.all().some((l) => l.startsWith('now talking to claude-haiku-5-5 via')) &&
            idle(s) &&
            statusText(s).startsWith('claude-haiku-5-5 · '),
        );
        cli.type('hi\r');
        await cli.waitForScreen('the answer', (s) => s.all().includes('From haiku.') && idle(s));
        expect(server.requests.at(-1)!.body.model).toBe('claude-haiku-5-5');
        cli.type('\x04');
        expect(await cli.finished).toBe(0);
      } finally {
        await server.close();
      }
    },
    SLOW,
  );
});

describe('@ completion on a terminal', () => {
  it(
    'offers workspace paths matching what follows @, fuzzily; Tab takes one; the prompt names the file',
    async () => {
      const { args } = storeArgs();
      const cli = new PtyCli(['chat', ...args], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);
      cli.type('read @grt');
      await cli.waitForScreen('the completions', (s) => s.lines().includes('› src/greeting.txt'));
      cli.type('\t');
      await cli.waitForScreen('the completed path', (s) => s.lines().includes('you › read @src/greeting.txt'));
      expect(cli.screen.lines()).not.toContain('› src/greeting.txt');
      cli.type('\r');
      await cli.waitForScreen('the answer', (s) => s.all().some((l) => l.includes('src/greeting.txt reads:')) && idle(s));
      expect(cli.screen.all()).toContain('hello from the workspace');
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
    },
    SLOW,
  );

  it(
    'shows file names that carry terminal escapes as text, one row each (36.12)',
    async () => {
      // A cloned repository names its files: an OSC 52 clipboard write, a device status request (the
      // terminal would type its answer into the prompt), a C1 CSI, a right-to-left override, a line break.
      const hostile = await makeWorkspace();
      try {
        const names = ['osc\u001b]52;c;aGk=\u0007.txt', 'csi\u001b[6n\u009b2K.txt', 'bidi\u202etxt.exe', 'nl\n  ✓ fake.txt'];
        for (const name of names) await writeFile(join(hostile.dir, name), '');
        const { args } = storeArgs();
        const cli = new PtyCli(['chat', ...args], hostile.dir, { NO_COLOR: '1' });
        await cli.waitForScreen('the first prompt', idle);
        const drawn = cli.output.length;
        cli.type('read @');
        // The list arrives in chunks of terminal output: wait until the last of its rows is drawn, then
        // check each row. A name drawn raw never ends a row as its escaped form, so the wait times out.
        const shownNames = ['osc\\x1b]52;c;aGk=\\x07.txt', 'csi\\x1b[6n\\x9b2K.txt', 'bidi\\u202etxt.exe', 'nl\\n  ✓ fake.txt'];
        await cli.waitForScreen('the completions', (s) => shownNames.every((shown) => s.lines().some((row) => row.endsWith(shown))));
        const rows = cli.screen.lines();
        expect(rows.some((row) => row.trimStart().startsWith('✓ fake.txt'))).toBe(false);
        const written = cli.output.slice(drawn);
        for (const raw of ['\u001b]52', '\u001b[6n', '\u009b', '\u202e', 'nl\n', 'nl\r\n'])
          expect(written, JSON.stringify(raw)).not.toContain(raw);
        // Ctrl-U empties the prompt (the list goes with its @), then Ctrl-D ends the chat.
        cli.type('\x15');
        await cli.waitForScreen('the list closed', (s) => !s.lines().some((l) => l.includes('fake.txt')));
        cli.type('\x04');
        expect(await cli.finished).toBe(0);
      } finally {
        await hostile.cleanup();
      }
    },
    SLOW,
  );
});
