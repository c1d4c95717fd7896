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
