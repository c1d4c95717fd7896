import { describe, expect, it } from 'vitest';
import { PromptEditor } from '../../../src/cli/chat/terminal/index.js';

const key = (name: string, mods: { ctrl?: boolean; meta?: boolean } = {}) => ({ name, ...mods });
const type = (editor: PromptEditor, text: string) => {
  for (const ch of text) editor.key(ch, {});
};

describe('the prompt editor', () => {
  it('moves and deletes by grapheme cluster, and places the cursor by display width', () => {
    const editor = new PromptEditor();
    type(editor, 'a');
    editor.insert('👨‍👩‍👧日');
    expect(editor.render(40, 'you › ', '    … ').cursor).toEqual({ row: 0, col: 6 + 1 + 2 + 2 });
    editor.key(undefined, key('left'));
    expect(editor.render(40, 'you › ', '    … ').cursor.col).toBe(9);
    editor.key(undefined, key('backspace'));
    expect(editor.value).toBe('a日');
    editor.key(undefined, key('right'));
    editor.key(undefined, key('backspace'));
    expect(editor.value).toBe('a');
  });

  it('wraps by width (by grapheme), keeps a pasted block whole with its lines, and shows steering characters as escapes', () => {
    const editor = new PromptEditor();
    editor.insert('first\r\nsecond \x1b[2J line');
    const view = editor.render(20, 'you › ', '    … ');
    // Wrapped by grapheme at 13 columns (20, less the prompt and the cursor's column).
    expect(view.lines).toEqual(['you › first', '    … second \\x1b[2', '      J line']);
    expect(view.cursor).toEqual({ row: 2, col: 12 });
  });

  it('edits by word and by line, and walks history past the first and last line', () => {
    const history = ['older', 'newer'];
    const editor = new PromptEditor(history);
    type(editor, 'one two three');
    editor.key(undefined, key('w', { ctrl: true }));
    expect(editor.value).toBe('one two ');
    editor.key(undefined, key('left', { meta: true }));
    editor.key(undefined, key('k', { ctrl: true }));
    expect(editor.value).toBe('one ');
    editor.key(undefined, key('up'));
    expect(editor.value).toBe('newer');
    editor.key(undefined, key('up'));
    expect(editor.value).toBe('older');
    editor.key(undefined, key('down'));
    editor.key(undefined, key('down'));
    expect(editor.value).toBe('one ');
    expect(editor.key(undefined, key('return'))).toBe('submit');
    expect(editor.take()).toBe('one ');
    expect(history).toEqual(['older', 'newer', 'one ']);
    expect(editor.key('\r', key('return', { meta: true }))).toBe('handled');
    expect(editor.value).toBe('\n');
  });
});
