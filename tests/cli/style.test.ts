import { describe, expect, it } from 'vitest';
import { paintFor } from '../../src/cli/style.js';

describe('colour', () => {
  it('paints for a terminal only, and never when NO_COLOR is set', () => {
    expect(paintFor({ isTTY: true }, {})('red', 'x')).toBe('\x1b[31mx\x1b[39m');
    expect(paintFor({ isTTY: true }, { NO_COLOR: '' })('red', 'x')).toBe('\x1b[31mx\x1b[39m');
    expect(paintFor({ isTTY: true }, { NO_COLOR: '1' })('red', 'x')).toBe('x');
    expect(paintFor({ isTTY: false }, {})('red', 'x')).toBe('x');
    expect(paintFor({}, {})(['bold', 'green'], 'x')).toBe('x');
  });
});

describe('painted text', () => {
  it('shows steering characters as escapes, in colour or not', () => {
    expect(paintFor({ isTTY: true }, {})('red', 'a\x1b[2Kb\u009b\r\n')).toBe('\x1b[31ma\\x1b[2Kb\\x9b\n\x1b[39m');
    expect(paintFor({}, {})('red', 'a\x1b]52;c;aGk=\x07')).toBe('a\\x1b]52;c;aGk=\\x07');
  });
});
