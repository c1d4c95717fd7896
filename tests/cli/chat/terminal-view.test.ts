import { describe, expect, it } from 'vitest';
import { highlighterReady } from '../../../src/cli/chat/highlight.js';
import { TerminalView, type TerminalUi } from '../../../src/cli/chat/terminal/index.js';
import { paintFor } from '../../../src/cli/style.js';
import type { Printable } from '../../../src/cli/tui/index.js';
import type { RunEvent } from '../../../src/runtime/index.js';
import { HOSTILE, STEERING } from '../hostile-text.js';

const OWN_SGR = /\u001b\[[0-9;]*m/g;

/** The parts of the terminal UI the view drives, recording what it printed. */
function fakeUi() {
  const printed: Printable[] = [];
  const ui = {
    expanded: false,
    printed,
    text: (width = 60) => printed.flatMap((p) => p(width)),
    print: (p: Printable) => void printed.push(p),
    setPreview: () => undefined,
    setActivity: () => undefined,
    setBusy: () => undefined,
    setStatus: () => undefined,
    pick: async () => null,
    approve: async () => null,
  };
  return ui;
}

async function show(events: RunEvent[], mode: 'rich' | 'plain' = 'rich') {
  const ui = fakeUi();
  const view = new TerminalView(ui as unknown as TerminalUi, paintFor({ isTTY: true }, mode === 'rich' ? {} : { NO_COLOR: '1' }), mode);
  view.begin();
  for (const event of events) view.handle(event);
  await view.end();
  return ui;
}

describe('the terminal view of a run', () => {
  it('loads the highlighter at the first code fence, not before, and prints the code highlighted', async () => {
    await show([{ runId: 'r1', kind: 'text_delta', delta: 'No code here, only **words**.\n\nMore words.' }]);
    expect(highlighterReady()).toBe(false);
    const ui = await show([
      { runId: 'r1', kind: 'text_delta', delta: 'Here:\n\n```ts\nconst a' },
      { runId: 'r1', kind: 'text_delta', delta: ' = "b";\n```\n\nDone.' },
      { runId: 'r1', kind: 'tool_started', callId: 'c1', name: 'clock.now', input: {} },
    ]);
    expect(highlighterReady()).toBe(true);
    const text = ui.text();
    expect(text).toContain('  \x1b[35mconst\x1b[39m\x1b[36m a = \x1b[39m\x1b[32m"b"\x1b[39m\x1b[36m;\x1b[39m');
    // In order: the text before the code, the code, the text after, then the tool line.
    const order = ['Here:', 'const', 'Done.', '⚙ clock.now'].map((part) => text.findIndex((line) => line.includes(part)));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('shows a tool result as one line until results are expanded (Ctrl-O), then whole', async () => {
    const ui = await show([
      {
        runId: 'r1',
        kind: 'tool_finished',
        callId: 'c1',
        name: 'bash',
        input: { command: 'ls' },
        result: 'a.txt\nb.txt\nc.txt',
        isError: false,
      },
    ]);
    expect(ui.text().map((l) => l.replace(OWN_SGR, ''))).toEqual(['  ✓ bash: a.txt (+2 more lines · Ctrl-O)']);
    ui.expanded = true;
    expect(ui.text().map((l) => l.replace(OWN_SGR, ''))).toEqual([
      '  ✓ bash: 3 lines (Ctrl-O to collapse)',
      '    │ a.txt',
      '    │ b.txt',
      '    │ c.txt',
    ]);
  });

  for (const mode of ['rich', 'plain'] as const) {
    it(`neutralises what the model or a tool produced (${mode})`, async () => {
      const ui = await show(
        [
          { runId: 'r1', kind: 'text_delta', delta: `Here is the file:\n${HOSTILE}\n\n` },
          { runId: 'r1', kind: 'tool_started', callId: 'c1', name: `files.read${HOSTILE}`, input: { path: HOSTILE } },
          {
            runId: 'r1',
            kind: 'tool_finished',
            callId: 'c1',
            name: 'files.read',
            input: { path: 'x' },
            result: `${HOSTILE}\nsecond`,
            isError: false,
          },
          {
            runId: 'r1',
            kind: 'tool_finished',
            callId: 'c2',
            name: 'files.read',
            input: { path: 'x' },
            result: { nested: HOSTILE },
            isError: true,
          },
        ] as RunEvent[],
        mode,
      );
      ui.expanded = true;
      for (const width of [30, 80]) {
        const out = ui.text(width).join('\n');
        expect(out.replace(OWN_SGR, '')).not.toMatch(STEERING);
        expect(out).toContain('\\x1b]52;c;');
        expect(out).toContain('file\\u202etxt.exe');
      }
    });
  }
});
