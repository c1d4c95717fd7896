import { InvalidSessionIdError } from './errors.js';

// The lock's private temp file is `<id>.lock.<32 hex>.tmp`; keeping ids at or under 200 bytes keeps
// every name the store derives from an id below the common 255-byte file name limit.
const MAX_ID_BYTES = 200;

/**
 * Why `id` cannot be a session id, or null when it can. Refused: every id that could name something
 * other than one file directly inside the store's root: empty, `.`/`..`, separators of any platform,
 * a drive prefix, NUL or other control characters, or an over-long name. Everything else (dots, spaces,
 * unicode) is allowed.
 */
export function sessionIdProblem(id: unknown): string | null {
  if (typeof id !== 'string') return 'it must be a string';
  if (id.length === 0) return 'it is empty';
  if (id === '.' || id === '..') return 'it names a directory';
  if (id.includes('/') || id.includes('\\')) return 'it contains a path separator';
  if (id.includes(':')) return 'it contains ":" (a drive or stream prefix on Windows)';
  for (let i = 0; i < id.length; i++) {
    const code = id.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return 'it contains a NUL or control character';
  }
  if (Buffer.byteLength(id, 'utf8') > MAX_ID_BYTES) return `it is longer than ${MAX_ID_BYTES} bytes`;
  return null;
}

/** Throws `InvalidSessionIdError` unless `id` names exactly one file inside a store's root. */
export function assertValidSessionId(id: unknown): asserts id is string {
  const problem = sessionIdProblem(id);
  if (problem !== null) throw new InvalidSessionIdError(String(id), problem);
}
