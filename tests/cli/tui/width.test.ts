import { describe, expect, it } from 'vitest';
import { graphemes, padToWidth, textWidth, truncateToWidth } from '../../../src/cli/tui/index.js';

describe('display width', () => {
  it.each([
    ['plain ASCII', 'hello', 5],
    ['CJK ideographs', '日本語', 6],
    ['Hangul', '한국어', 6],
    ['fullwidth Latin', 'ＡＢ', 4],
    ['halfwidth katakana', 'ｱｲ', 2],
    ['an emoji', '👍', 2],
    ['an emoji with a skin tone', '👍🏽', 2],
    ['a ZWJ family', '👨‍👩‍👧', 2],
    ['a text heart made emoji by VS16', '❤️', 2],
    ['a text heart', '❤', 1],
    ['a keycap', '1️⃣', 2],
    ['a flag', '🇯🇵', 2],
    ['a letter and a combining accent', 'e\u0301', 1],
    ['a zero-width space', 'a\u200bb', 2],
    ['our own colour codes', '\x1b[1mbold\x1b[22m', 4],
    ['symbols the chat draws', '⚙ ✓ ✗ › … ─ ⠋', 13],
  ])('%s', (_, text, width) => {
    expect(textWidth(text)).toBe(width);
  });

  it('splits text into grapheme clusters', () => {
    expect(graphemes('a👨‍👩‍👧é🇯🇵')).toEqual(['a', '👨‍👩‍👧', 'é', '🇯🇵']);
  });

  it('truncates by columns, never inside a cluster or a colour code, and resets a cut colour', () => {
    expect(truncateToWidth('日本語のテキスト', 7)).toBe('日本語…');
    expect(truncateToWidth('ab👨‍👩‍👧cd', 4)).toBe('ab…');
    expect(truncateToWidth('\x1b[31mhello world\x1b[39m', 6)).toBe('\x1b[31mhello…\x1b[0m');
    expect(truncateToWidth('short', 10)).toBe('short');
    expect(padToWidth('日本', 6)).toBe('日本  ');
  });
});
