import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import type { VtScreen } from '../support/vt-screen.js';
import { runCli, useWorkspace } from './cli-process.js';
import { HOSTILE, STEERING } from './hostile-text.js';
import { PtyCli, SGR } from './pty.js';
import { answers, idle, OUR_SEQUENCES, statusText } from './screen-helpers.js';

// The chat on a real pseudo-terminal: what a person typing and pasting sees (the screen, as a terminal
// would draw the bytes the command wrote), and what it stores.
const SLOW = 300_000;

const workspace = useWorkspace();
const { storeArgs } = workspace;
let server: AnthropicTestServer;
beforeAll(async () => {
  server = await startAnthropicServer();
});
afterAll(async () => {
  await server.close();
});

/** The user turns of the only session in `store`, and how many nodes it has. */
async function userTurns(store: SessionStore): Promise<{ texts: string[]; size: number }> {
  const [session] = await store.listSessions();
  const graph = await store.loadSession(session.id);
  const texts = graph
    .nodesTo(graph.leaf!)
    .filter((node) => node.turn.role === 'user' && node.turn.blocks.some((b) => b.kind === 'text'))
    .map((node) => node.turn.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join(''));
  return { texts, size: graph.size };
}

const demoAnswers = (screen: VtScreen) => answers(screen, /I am the offline demo model/);

describe('indusagi chat on a terminal: input', () => {
  it(
    'a pasted block of 5 lines is one prompt and one run; Alt-Enter adds a line; Up recalls prompts, in the next chat too',
    async () => {
      const { args, store } = storeArgs();
      const cli = new PtyCli(['chat', ...args], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);
      const pasted = ['line one', 'line two', 'line three', 'line four', 'line five'].join('\n');
      cli.paste(pasted);
      cli.type('\r');
      await cli.waitForScreen('the answer to the paste', (s) => demoAnswers(s) === 1 && idle(s));

      cli.type('hello\x1b\rthere\r');
      await cli.waitForScreen('the second answer', (s) => demoAnswers(s) === 2 && idle(s));

      cli.type('\x1b[A\r');
      await cli.waitForScreen('the third answer', (s) => demoAnswers(s) === 3 && idle(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);

      const { texts, size } = await userTurns(store);
      expect(texts).toEqual([pasted, 'hello\nthere', 'hello\nthere']);
      // One answer per prompt: three runs, not one per pasted line.
      expect(size).toBe(6);
      // The paste was shown as one prompt, its lines after a continuation marker.
      expect(cli.screen.all()).toContain('    … line five');

      // The workspace keeps its prompts: Up in the next chat brings the last one back into the editor.
      const next = new PtyCli(['chat', ...args], workspace.dir, { NO_COLOR: '1' });
      await next.waitForScreen('the first prompt', idle);
      next.type('\x1b[A');
      await next.waitForScreen('the recalled prompt', (s) => s.lines().includes('you › hello') && s.lines().includes('    … there'));
      next.type('\x15\x1b[A\x1b[A\x1b[A');
      await next.waitForScreen('an older prompt', (s) => s.lines().includes('you › line one'));
      next.type('\x03\x04');
      expect(await next.finished).toBe(0);
    },
    SLOW,
  );
});

describe('indusagi chat on a terminal: typing while a run streams', () => {
  it(
    'keeps the editor usable: a prompt sent meanwhile is shown queued and runs once the reply is done',
    async () => {
      const { args, store } = storeArgs();
      const cli = new PtyCli(['chat', ...args], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);
      cli.type('tell me a long story\r');
      await cli.waitForScreen('the story streaming', (s) => s.all().some((l) => l.includes('Part 1 of 5')));
      cli.type('what time is it?\r');
      await cli.waitForScreen('the queued prompt', (s) => s.lines().includes('↳ queued: what time is it?'));
      await cli.waitForScreen('both answers', (s) => s.all().some((l) => l.includes('The clock tool says')) && idle(s));
      expect(cli.screen.lines()).not.toContain('↳ queued: what time is it?');
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
      // In order: the story's reply was whole before the queued prompt was taken.
      const { texts } = await userTurns(store);
      expect(texts).toEqual(['tell me a long story', 'what time is it?']);
      const all = cli.screen.all();
      expect(all.findIndex((l) => l.includes('Part 5 of 5'))).toBeLessThan(all.indexOf('you › what time is it?'));
    },
    SLOW,
  );
});

describe('indusagi chat on a terminal: Ctrl-C', () => {
  it(
    'clears a prompt being written; stops the run in progress, then a second Ctrl-C leaves with 130; idle, the first only warns',
    async () => {
      const { args } = storeArgs();
      const cli = new PtyCli(['chat', ...args], workspace.dir, { NO_COLOR: '1' });
      await cli.waitForScreen('the first prompt', idle);
      cli.type('half a thought');
      await cli.waitForScreen('the typed text', (s) => s.lines().includes('you › half a thought'));
      cli.type('\x03');
      await cli.waitForScreen('the editor cleared', (s) => s.lines().includes('you ›') && idle(s));
      cli.type('\x03');
      await cli.waitForScreen('the warning', (s) => s.all().includes('(Ctrl-C again to exit)'));
      cli.type('tell me a long story\r');
      await cli.waitForScreen('the story streaming', (s) => s.all().some((l) => l.includes('Part 1 of 5')));
      cli.type('\x03');
      await cli.waitForScreen('the interruption', (s) =>
        s.all().includes('⏹ interrupted; the unfinished reply was not saved (Ctrl-C again to exit)'),
      );
      cli.type('\x03');
      expect(await cli.finished).toBe(130);
      // The live region was taken down: the last line on screen is the transcript's, not the editor.
      expect(cli.screen.text().split('\n').at(-1)).toBe('⏹ interrupted; the unfinished reply was not saved (Ctrl-C again to exit)');
    },
    SLOW,
  );
});

describe('indusagi chat on a terminal: the status line', () => {
  it(
    'stays under the editor, redrawn with the model, session, context of the window, and the tokens and cost `sessions show` bills',
    async () => {
      const { args } = storeArgs();
      server.enqueue(
        reply.httpError(529, { headers: { 'retry-after-ms': '1000' } }),
        reply.text('Hello there.', {
          usage: { input_tokens: 1_200, output_tokens: 30, cache_creation_input_tokens: 800, cache_read_input_tokens: 0 },
        }),
        reply.text('Again.', {
          usage: { input_tokens: 40, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 2_000 },
        }),
      );
      const env = { NO_COLOR: '1', ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.baseURL };
      const cli = new PtyCli(['chat', '--session', 'priced', '--model', 'claude-sonnet-5-5', ...args], workspace.dir, env, {
        cols: 160,
        rows: 30,
      });
      await cli.waitForScreen('the first status line', (s) => idle(s) && statusText(s) !== '');
      // Before any call: the window, nothing used.
      expect(statusText(cli.screen)).toBe('claude-sonnet-5-5 · session priced · context -/1,000,000 · session 0 tokens · $0');
      cli.type('hi\r');
      await cli.waitForScreen(
        'the first answer',
        (s) => s.all().includes('Hello there.') && idle(s) && statusText(s).includes('session 2,030 tokens'),
      );
      const first = statusText(cli.screen);
      cli.type('again\r');
      await cli.waitForScreen(
        'the second answer',
        (s) => s.all().includes('Again.') && idle(s) && statusText(s).includes('session 4,075 tokens'),
      );
      const second = statusText(cli.screen);
      // One status line, at the bottom, under the editor: it was redrawn, never printed into the transcript.
      const lines = cli.screen.lines().filter((l) => l !== '');
      expect(lines.at(-1)).toBe(second);
      expect(lines.at(-2)).toBe('you ›');
      expect(cli.screen.all().filter((l) => l.startsWith('claude-sonnet-5-5 · session priced'))).toEqual([second]);
      cli.type('\x04');
      expect(await cli.finished).toBe(0);

      expect(cli.screen.all()).toContain('  ↻ overloaded (HTTP 529), retrying in 1 s (attempt 2)');
      expect(first).toMatch(
        /^claude-sonnet-5-5 · session priced · context 2,030\/1,000,000 \(0\.2%\) · session 2,030 tokens · ~\$0\.00\d\d$/,
      );

      const show = await runCli(['sessions', 'show', 'priced', ...args], workspace.dir);
      const billed = show.stdout.match(
        /usage \(all branches, as billed\): ([\d,]+) input, ([\d,]+) output, ([\d,]+) cache write, ([\d,]+) cache read tokens/,
      )!;
      const total = billed.slice(1).reduce((sum, n) => sum + Number(n.replace(/,/g, '')), 0);
      const cost = show.stdout.match(/estimated cost: \$([\d.]+) /)![1];
      expect(total).toBe(1_240 + 35 + 800 + 2_000);
      expect(second).toBe(
        `claude-sonnet-5-5 · session priced · context 2,045/1,000,000 (0.2%) · session ${total.toLocaleString('en-US')} tokens · ~$${cost}`,
      );
    },
    SLOW,
  );
});

const MARKDOWN = [
  '# Release plan',
  '',
  'Ship the **parser** first, then *measure* it with `npm run bench` before anything else moves along.',
  '',
  '- write the notes',
  '- tag the release',
  '',
  '```ts',
  'const version = "1.2.0";',
  '```',
  '',
  `Careful: ${HOSTILE}`,
].join('\n');

describe('indusagi chat on a terminal: output', () => {
  it(
    'renders Markdown in colour, code highlighted, wrapped at word boundaries to the terminal width, and never obeys escapes in it',
    async () => {
      const { args } = storeArgs();
      server.enqueue(reply.text(MARKDOWN));
      const env = { ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.baseURL };
      const cli = new PtyCli(['chat', '--model', 'claude-sonnet-5-5', ...args], workspace.dir, env, { cols: 40, rows: 40 });
      await cli.waitForScreen('the first prompt', idle);
      const mark = cli.output.length;
      cli.type('plan it\r');
      await cli.waitForScreen('the answer', (s) => s.all().some((l) => l.startsWith('Careful:')) && idle(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);

      const answer = cli.output.slice(mark);
      // Emphasis as terminal styles, not asterisks; the TypeScript keyword and string highlighted.
      expect(answer).toContain('\x1b[1mparser\x1b[22m');
      expect(answer).toContain('\x1b[3mmeasure\x1b[23m');
      expect(answer).not.toContain('**parser**');
      expect(answer).toContain('\x1b[35mconst\x1b[39m');
      expect(answer).toContain('\x1b[32m"1.2.0"\x1b[39m');
      const lines = cli.screen.all();
      const start = lines.indexOf('Release plan');
      expect(start).toBeGreaterThan(-1);
      expect(lines.slice(start, start + 14)).toEqual([
        'Release plan',
        '',
        'Ship the parser first, then measure it',
        'with npm run bench before anything else',
        'moves along.',
        '',
        '• write the notes',
        '• tag the release',
        '',
        '  ts',
        '  const version = "1.2.0";',
        '',
        expect.stringMatching(/^Careful: \\x1b\]52;c;ZWNob/),
        expect.any(String),
      ]);
      // Every paragraph line fits the 40 columns; the escapes in the model's text are shown, not sent.
      for (const line of lines.slice(start, start + 5)) expect(line.length).toBeLessThanOrEqual(40);
      expect(answer).not.toContain('\x1b]52');
      // Left once our own colour, cursor, erase, mode sequences and carriage returns are taken out: nothing that steers.
      expect(answer.replace(SGR, '').replace(OUR_SEQUENCES, '').replace(/\r/g, '')).not.toMatch(STEERING);
    },
    SLOW,
  );

  it(
    'shows the Markdown source, wrapped, with NO_COLOR; and streams it untouched when piped',
    async () => {
      const { args } = storeArgs();
      server.enqueue(reply.text(MARKDOWN), reply.text(MARKDOWN));
      const env = { NO_COLOR: '1', ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: server.baseURL };
      const cli = new PtyCli(['chat', ...args], workspace.dir, env, { cols: 40, rows: 40 });
      await cli.waitForScreen('the first prompt', idle);
      const mark = cli.output.length;
      cli.type('plan it\r');
      await cli.waitForScreen('the answer', (s) => s.all().some((l) => l.startsWith('Careful:')) && idle(s));
      cli.type('\x04');
      expect(await cli.finished).toBe(0);
      const answer = cli.output.slice(mark);
      expect(answer).not.toMatch(SGR);
      const lines = cli.screen.all();
      const start = lines.indexOf('# Release plan');
      expect(lines.slice(start, start + 6)).toEqual([
        '# Release plan',
        '',
        'Ship the **parser** first, then',
        '*measure* it with `npm run bench` before',
        'anything else moves along.',
        '',
      ]);

      const piped = await runCli(['chat', ...args], workspace.dir, ['plan it'], {
        ANTHROPIC_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: server.baseURL,
      });
      expect(piped.stdout).toContain(`› plan it\n${MARKDOWN.split('Careful:')[0]}Careful: \\x1b]52;c;`);
      // Piped output draws nothing in place: no cursor moves, no erasing, no status line.
      expect(piped.stdout).not.toMatch(/\x1b\[/);
    },
    SLOW,
  );
});
