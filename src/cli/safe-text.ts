/**
 * Characters that steer a terminal instead of printing: the C0 controls except tab and newline (ESC
 * starts every escape sequence, CR and BS overwrite what is shown), DEL, the C1 controls (U+009B is
 * a one-character CSI, U+009D an OSC) and the BIDI embeddings, overrides and isolates, which reorder
 * the text around them so a line can read differently from what it holds.
 */
export const CONTROL_CHARS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

const EVERY_CONTROL = new RegExp(CONTROL_CHARS.source, 'gu');

const hex = (char: string, digits: number) => char.charCodeAt(0).toString(16).padStart(digits, '0');

/**
 * `text` as a terminal should show it: each steering character written out as an escape (`\x1b`,
 * `\x9b`, `\u202e`), so it is seen and not obeyed; newlines and tabs kept, CRLF read as a newline.
 * For anything a model, a tool or a stored session produced.
 */
export function terminalText(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(EVERY_CONTROL, escaped);
}

const NAME_CONTROL = new RegExp(`${CONTROL_CHARS.source}|[\\n\\t]`, 'gu');

/**
 * A name (a file's, a path) as a terminal should show it on one line: every steering character written
 * out as `terminalText` writes it, and newlines and tabs too (`\n`, `\t`), since a name with a line
 * break in it would draw a line of its own in a list of names (`x\n  ✓ fake.txt`).
 */
export function terminalName(name: string): string {
  return name.replace(NAME_CONTROL, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : escaped(c)));
}

function escaped(c: string): string {
  return c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`;
}

/**
 * JSON text (from `JSON.stringify`) with the steering characters it leaves raw (DEL, C1, BIDI; it
 * escapes C0 itself) written as `\uXXXX`: still valid JSON for the same value, and safe to print.
 */
export function terminalJson(json: string): string {
  return json.replace(EVERY_CONTROL, (c) => `\\u${hex(c, 4)}`);
}
