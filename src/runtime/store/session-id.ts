import { InvalidSessionIdError } from './errors.js';

// The lock's private temp file is `<id>.lock.<32 hex>.tmp`; keeping ids at or under 200 bytes keeps
// every name the store derives from an id below the common 255-byte file name limit.
const MAX_ID_BYTES = 200;

// C0 and C1 controls and DEL (a terminal acts on them: U+009B starts an escape sequence like ESC [),
// the line and paragraph separators, and the bidirectional overrides and isolates (they make a listed
// id read as something else).
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;
// With the `u` flag a surrogate range matches only a surrogate that is not half of a pair.
const LONE_SURROGATE = /[\ud800-\udfff]/u;

/**
 * Why `id` cannot be a session id, or null when it can. Refused: every id that could name something
 * other than one file directly inside the store's root, or print as something it is not: empty,
 * `.`/`..`, separators of any platform, a drive prefix, control characters (C0, C1, DEL, line
 * separators, bidi controls), a lone surrogate (two such ids would name the same file), or an
 * over-long name. Everything else (dots, spaces, unicode) is allowed.
 */
export function sessionIdProblem(id: unknown): string | null {
  if (typeof id !== 'string') return 'it must be a string';
  if (id.length === 0) return 'it is empty';
  if (id === '.' || id === '..') return 'it names a directory';
  if (id.includes('/') || id.includes('\\')) return 'it contains a path separator';
  if (id.includes(':')) return 'it contains ":" (a drive or stream prefix on Windows)';
  if (LONE_SURROGATE.test(id)) return 'it contains a lone surrogate (not valid Unicode)';
  const control = CONTROL.exec(id);
  if (control !== null)
    return `it contains a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`;
  if (Buffer.byteLength(id, 'utf8') > MAX_ID_BYTES) return `it is longer than ${MAX_ID_BYTES} bytes`;
  return null;
}

/** Throws `InvalidSessionIdError` unless `id` names exactly one file inside a store's root. */
export function assertValidSessionId(id: unknown): asserts id is string {
  const problem = sessionIdProblem(id);
  if (problem !== null) throw new InvalidSessionIdError(String(id), problem);
}
