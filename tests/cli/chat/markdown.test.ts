import { beforeAll, describe, expect, it } from 'vitest';
import { completeBlocksEnd, loadMarkdown, renderMarkdown, wrapPlain } from '../../../src/cli/chat/markdown.js';
import { paintFor } from '../../../src/cli/style.js';
import { HOSTILE, STEERING } from '../hostile-text.js';

const colour = paintFor({ isTTY: true }, {});
const SGR = /\u001b\[[0-9;]*m/g;
const plain = (text: string) => text.replace(SGR, '');

describe('renderMarkdown', () => {
  beforeAll(loadMarkdown);

  it('lays out nested lists, numbered lists, quotes and code without re-wrapping code', () => {
    const out = renderMarkdown(
      ['1. first', '2. second', '   - inner point', '', '> quoted words', '', '```', `${'x'.repeat(50)} long code line`, '```'].join('\n'),
      30,
      colour,
    );
    expect(plain(out).split('\n')).toEqual([
      '1. first',
      '2. second',
      '   • inner point',
      '',
      '│ quoted words',
      '',
      `  ${'x'.repeat(50)} long code line`,
    ]);
  });

  it('cuts a word longer than the line, and only such a word', () => {
    const out = plain(renderMarkdown(`short ${'y'.repeat(25)} end`, 20, colour));
    expect(out.split('\n')).toEqual(['short', 'y'.repeat(20), 'yyyyy end']);
  });

  it('shows steering characters as escapes wherever Markdown puts them: heading, emphasis, code, link, list, quote, table', () => {
    const source = [
      `# ${HOSTILE}`,
      `**${HOSTILE}** and \`${HOSTILE}\` and [${HOSTILE}](http://x/${encodeURIComponent('\u001b')})`,
      `- ${HOSTILE}`,
      `> ${HOSTILE}`,
      '',
      `| a | b |`,
      `| - | - |`,
      `| ${HOSTILE} | x |`,
      '',
      '```',
      HOSTILE,
      '```',
      `<b>${HOSTILE}</b>`,
    ].join('\n');
    const out = renderMarkdown(source, 60, colour);
    expect(out.replace(SGR, '')).not.toMatch(STEERING);
    expect(out).toContain('\\x1b]52;c;ZWNobyBwd25lZAo=\\x07');
  });
});

describe('wrapPlain', () => {
  it('keeps the source and its indentation, breaking only at spaces', () => {
    expect(wrapPlain('**bold** words that go on and on\n  - item with more words', 16).split('\n')).toEqual([
      '**bold** words',
      'that go on and',
      'on',
      '  - item with',
      '  more words',
    ]);
  });
});

describe('completeBlocksEnd', () => {
  it('ends after a blank line outside a fence, or after a closing fence, never inside an open one', () => {
    expect(completeBlocksEnd('para one\n\npara tw')).toBe('para one\n\n'.length);
    expect(completeBlocksEnd('```\ncode\n\nmore')).toBe(0);
    expect(completeBlocksEnd('```\ncode\n\n```\nafter')).toBe('```\ncode\n\n```\n'.length);
    expect(completeBlocksEnd('no newline yet')).toBe(0);
  });
});
