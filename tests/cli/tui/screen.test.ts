import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { Screen, type Frame } from '../../../src/cli/tui/index.js';
import { VtScreen } from '../../support/vt-screen.js';

/** A terminal for the screen to draw on: what it writes goes to a screen model, frame by frame. */
class FakeTerminal extends EventEmitter {
  readonly vt: VtScreen;
  writes: string[] = [];
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super();
    this.vt = new VtScreen(columns, rows);
  }
  write(text: string): boolean {
    this.writes.push(text);
    this.vt.feed(text);
    return true;
  }
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.vt.resize(columns, rows);
    this.emit('resize');
  }
}

/** One turn of the event loop: the screen draws a refreshed frame on the next. */
const frame = () => new Promise<void>((resolve) => setImmediate(resolve));

function live(lines: string[], cursor?: Frame['cursor']): () => Frame {
  return () => ({ lines, cursor });
}

describe('Screen', () => {
  it('prints the transcript above the live region, which stays at the bottom with the cursor where it asks', async () => {
    const term = new FakeTerminal(40, 10);
    const screen = new Screen(term);
    screen.setLive(live(['──', 'you › hi', 'status'], { row: 1, col: 8 }));
    await frame();
    screen.print(() => ['first line', 'second line']);
    screen.print(() => ['third line']);
    expect(term.vt.text()).toBe(['first line', 'second line', 'third line', '──', 'you › hi', 'status'].join('\n'));
    expect([term.vt.row, term.vt.col]).toEqual([4, 8]);
    expect(term.vt.cursorVisible).toBe(true);
  });

  it('rewrites only the lines that changed: a spinner tick is one line', async () => {
    const term = new FakeTerminal(40, 10);
    const screen = new Screen(term);
    const lines = ['⠋ waiting for the model', '──', 'you › ', 'model · session · context'];
    screen.setLive(() => ({ lines: [...lines], cursor: { row: 2, col: 6 } }));
    await frame();
    term.writes = [];
    lines[0] = '⠙ waiting for the model';
    screen.refresh();
    await frame();
    expect(term.writes).toHaveLength(1);
    const written = term.writes[0];
    expect(written).toContain('⠙ waiting for the model');
    for (const unchanged of ['──', 'you ›', 'model · session']) expect(written).not.toContain(unchanged);
    // Inside synchronized output, so the terminal shows the frame whole.
    expect(written.startsWith('\x1b[?2026h')).toBe(true);
    expect(written.endsWith('\x1b[?2026l')).toBe(true);
    expect(term.vt.lines().slice(0, 4)).toEqual(['⠙ waiting for the model', '──', 'you ›', 'model · session · context']);

    // Nothing changed: no line is written, only the cursor placed.
    term.writes = [];
    screen.refresh();
    await frame();
    expect(term.writes.join('')).not.toMatch(/waiting|──|you|model/);
  });

  it('erases the rows a shrinking region no longer uses', async () => {
    const term = new FakeTerminal(40, 10);
    const screen = new Screen(term);
    let lines = ['a', 'b', 'c', 'd'];
    screen.setLive(() => ({ lines }));
    await frame();
    lines = ['a', 'x'];
    screen.refresh();
    await frame();
    expect(term.vt.text()).toBe('a\nx');
    expect(term.vt.cursorVisible).toBe(false);
  });

  it('cuts live lines one column short of the width, and the region to the terminal height (keeping the bottom)', async () => {
    const term = new FakeTerminal(20, 6);
    const screen = new Screen(term);
    const tall = Array.from({ length: 9 }, (_, i) => `row ${i} ${'x'.repeat(30)}`);
    screen.setLive(live(tall, { row: 8, col: 3 }));
    await frame();
    const shown = term.vt.lines();
    expect(shown.filter((l) => l !== '')).toEqual(tall.slice(4).map((l) => `${l.slice(0, 18)}…`));
    for (const line of shown) expect(line.length).toBeLessThan(20);
    expect([term.vt.row, term.vt.col]).toEqual([4, 3]);
  });

  it('lays the whole transcript out again for a new width on a resize, scrollback included, without duplicates', async () => {
    const term = new FakeTerminal(30, 8);
    const screen = new Screen(term);
    screen.setLive(live(['──', 'you ›'], { row: 1, col: 6 }));
    // A paragraph wrapped to the width it is given, as Markdown blocks are.
    const words = 'one two three four five six seven eight nine ten eleven twelve'.split(' ');
    const wrapped = (width: number) => {
      const out: string[] = [];
      let line = '';
      for (const word of words) {
        if (line !== '' && `${line} ${word}`.length > width) {
          out.push(line);
          line = word;
        } else line = line === '' ? word : `${line} ${word}`;
      }
      return [...out, line];
    };
    for (let i = 0; i < 3; i++) screen.print(wrapped);
    await frame();
    expect(term.vt.all().filter((l) => l.startsWith('one two'))).toHaveLength(3);

    term.resize(24, 8);
    const all = term.vt.all().filter((l) => l !== '');
    expect(all.filter((l) => l === 'one two three four five')).toHaveLength(3);
    expect(all).toHaveLength(3 * wrapped(24).length + 2);
    for (const line of all) expect(line.length).toBeLessThanOrEqual(24);
    expect(all.slice(-2)).toEqual(['──', 'you ›']);
    expect([term.vt.row, term.vt.col]).toEqual([term.vt.lines().indexOf('you ›'), 6]);
  });

  it('lays the transcript out again on redrawAll, for a change in how it is shown at the same width', async () => {
    const term = new FakeTerminal(30, 8);
    const screen = new Screen(term);
    let expanded = false;
    screen.setLive(live(['you ›'], { row: 0, col: 6 }));
    screen.print(() => (expanded ? ['result:', '  one', '  two'] : ['result: one (+1 more)']));
    expect(term.vt.text()).toBe('result: one (+1 more)\nyou ›');
    expanded = true;
    screen.redrawAll();
    expect(term.vt.text()).toBe('result:\n  one\n  two\nyou ›');
  });

  it('stops: the live region is erased, the transcript stays, and later lines are written plainly', async () => {
    const term = new FakeTerminal(30, 8);
    const screen = new Screen(term);
    screen.setLive(live(['──', 'you ›', 'status'], { row: 1, col: 6 }));
    screen.print(() => ['kept']);
    screen.stop();
    screen.print(() => ['after the end']);
    screen.refresh();
    await frame();
    expect(term.vt.text()).toBe('kept\nafter the end');
    expect(term.listenerCount('resize')).toBe(0);
  });
});
