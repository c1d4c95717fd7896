import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { useWorkspace } from './cli-process.js';
import { PtyCli } from './pty.js';
import { idle, liveRows, statusText } from './screen-helpers.js';

// The persistent screen after the terminal is resized, and the editor with wide characters.
const SLOW = 300_000;

const workspace = useWorkspace();
const { storeArgs } = workspace;

const rule = (cols: number) => '─'.repeat(cols - 1);

describe('the screen after a resize', () => {
  it(
    'lays the transcript and the live region out again for the new width, once, narrower and wider',
    async () => {
      const { args } = storeArgs();
      const cli = new PtyCli(['chat', '--session', 'resized', ...args], workspace.dir, { NO_COLOR: '1' }, { cols: 80, rows: 24 });
      await cli.waitForScreen('the first prompt', idle);
      cli.type('list files in src\r');
      // Idle, with the status line read back from the store after the run (the demo has no prices).
      await cli.waitForScreen(
        'the answer',
        (s) => s.all().includes('(offline demo model) src holds:') && idle(s) && statusText(s).endsWith('cost unknown'),
      );
      const banner = cli.screen.all()[0] + cli.screen.all()[1];
      expect(banner).toMatch(/^indusagi chat · session resized · the offline demo model, .*is set\)$/);
      // Written at 80 columns, wrapped by the terminal there.
      expect(cli.screen.all()[0]).toBe(banner.slice(0, 80));

      cli.resize(50, 20);
      await cli.waitForScreen('the narrow layout', (s) => s.lines().includes(rule(50)) && statusText(s).includes('context'));
      const narrow = cli.screen.all();
      // The banner, wrapped by the terminal at 50 columns: the whole transcript was written again.
      expect(narrow.slice(0, 3)).toEqual([banner.slice(0, 50), banner.slice(50, 100), banner.slice(100)]);
      expect(narrow.filter((line) => line === 'you › list files in src')).toHaveLength(1);
      expect(narrow.filter((line) => line === '(offline demo model) src holds:')).toHaveLength(1);
      for (const line of cli.screen.lines()) expect(line.length).toBeLessThanOrEqual(50);
      // The status line wraps at its separators, under the editor.
      expect(liveRows(cli.screen)).toEqual([
        'you ›',
        'indusagi-offline-demo · session resized',
        expect.stringMatching(/^context [\d,]+\/6,000 \([\d.]+%\) · session [\d,]+ tokens$/),
        'cost unknown',
      ]);
      expect(cli.screen.cursorVisible).toBe(true);
      expect([cli.screen.row, cli.screen.col]).toEqual([cli.screen.lines().indexOf('you ›'), 6]);

      cli.resize(100, 30);
      await cli.waitForScreen('the wide layout', (s) => s.lines().includes(rule(100)));
      expect(cli.screen.all()[0]).toBe(banner.slice(0, 100));
      expect(cli.screen.all().filter((line) => line === 'you › list files in src')).toHaveLength(1);
      cli.type('what time is it?\r');
      await cli.waitForScreen('the next answer', (s) => s.all().some((l) => l.includes('The clock tool says')) && idle(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
    },
    SLOW,
  );
});

describe('the editor with wide characters', () => {
  it(
    'puts the cursor where the terminal draws it: CJK and emoji take two columns, a cluster is one step',
    async () => {
      const { args, dir } = storeArgs();
      const cli = new PtyCli(['chat', '--session', 'wide', ...args], workspace.dir, { NO_COLOR: '1' }, { cols: 50, rows: 20 });
      await cli.waitForScreen('the first prompt', idle);
      const editorRow = () => cli.screen.lines().findIndex((line) => line.startsWith('you ›'));

      cli.type('日本語 👍🏽 test');
      await cli.waitForScreen('the text', (s) => s.lines().includes('you › 日本語 👍🏽 test'));
      // 6 (prompt) + 6 (three ideographs) + 1 + 2 (one emoji with its skin tone) + 1 + 4.
      expect([cli.screen.row, cli.screen.col]).toEqual([editorRow(), 20]);
      cli.type('\x1b[D'.repeat(5));
      await cli.waitForScreen('the cursor after the emoji', (s) => s.col === 15);
      cli.type('\x7f');
      await cli.waitForScreen('the emoji deleted whole', (s) => s.lines().includes('you › 日本語  test'));
      expect(cli.screen.col).toBe(13);

      // A long line of ideographs wraps by width: 21 to a row (43 columns of room after the prompt).
      cli.type('\x05' + '漢'.repeat(60));
      // The first row has 31 columns left after "日本語  test": 15 ideographs; then 21 a row; 3 on the last.
      await cli.waitForScreen('the wrapped text', (s) => s.lines().includes('      漢漢漢'));
      const rows = cli.screen.lines().slice(editorRow(), editorRow() + 4);
      expect(rows).toEqual([
        `you › 日本語  test${'漢'.repeat(15)}`,
        `      ${'漢'.repeat(21)}`,
        `      ${'漢'.repeat(21)}`,
        '      漢漢漢',
      ]);
      expect([cli.screen.row, cli.screen.col]).toEqual([editorRow() + 3, 6 + 6]);
      cli.type('\x15');
      cli.type('日本語 👍🏽\r');
      await cli.waitForScreen('the answer', (s) => s.all().some((l) => l.includes('I am the offline demo model')) && idle(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
      const graph = await new SessionStore(dir).loadSession('wide');
      expect(graph.nodesTo(graph.leaf!)[0].turn.blocks).toEqual([{ kind: 'text', text: '日本語 👍🏽' }]);
    },
    SLOW,
  );
});
