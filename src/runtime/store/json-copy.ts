// One walk over a turn makes what appending it needs: a copy of it (the graph's own, which later changes
// to the caller's object do not reach), its JSON text in the caller's key order (what a store writes) and
// its canonical text (sorted keys, what the id is hashed from). Each node used to be serialized, parsed
// back and serialized again in sorted order; the walk reads every value once and writes both texts from
// the same pieces.

/** What `plainJsonCopy` makes of a value. */
export type PlainJsonCopy = {
  /** Equal to `JSON.parse(text)`: a reload of `text` gives exactly this back. */
  copy: unknown;
  /** `JSON.stringify(copy)`: own keys in the caller's order. */
  text: string;
  /** `canonicalJsonOfParsed(copy)`: every object's keys sorted. */
  canonical: string;
};

// Returned by the walk for a value it leaves to JSON itself (see `plainJsonCopy`).
const NOT_PLAIN: unique symbol = Symbol('not plain JSON');
// Past this depth the walk stops and JSON copies the value: the walk recurses, and a cycle must end in
// JSON.stringify's TypeError, not in a stack overflow here.
const MAX_DEPTH = 64;

// The two texts of the value the walk returned last, in place of a pair allocated for every value.
let plainText = '';
let canonicalText = '';

/**
 * The copy and both texts of `value`, or undefined when it holds anything but strings, finite numbers,
 * booleans, null, undefined (left out of an object, null in an array, as JSON writes them), arrays and
 * plain objects (prototype Object.prototype or null) without toJSON, or nests deeper than 64 levels:
 * those JSON has its own rules for (toJSON, dates, NaN, functions, bigints, cycles), so the caller copies
 * them through JSON.stringify and JSON.parse instead. -0 is copied as 0, as a reload would give it.
 */
export function plainJsonCopy(value: unknown): PlainJsonCopy | undefined {
  let copy: unknown;
  try {
    copy = walk(value, 0);
  } catch {
    // A getter or proxy threw: JSON.stringify meets it again and says so (as InvalidTurnError, in the caller).
    stackTop = 0;
    return undefined;
  }
  if (copy === NOT_PLAIN || copy === undefined) return undefined;
  return { copy, text: plainText, canonical: canonicalText };
}

function walk(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
      plainText = canonicalText = jsonString(value);
      return value;
    case 'number':
      if (!Number.isFinite(value)) return NOT_PLAIN;
      // String(n) is JSON's text for every finite number; -0 writes (and reloads) as 0.
      plainText = canonicalText = String(value);
      return value === 0 ? 0 : value;
    case 'boolean':
      plainText = canonicalText = value ? 'true' : 'false';
      return value;
    case 'undefined':
      return undefined;
    case 'object':
      if (value === null) {
        plainText = canonicalText = 'null';
        return null;
      }
      if (depth >= MAX_DEPTH) return NOT_PLAIN;
      return Array.isArray(value) ? walkArray(value, depth) : walkObject(value, depth);
    default:
      return NOT_PLAIN;
  }
}

function walkArray(value: readonly unknown[], depth: number): unknown {
  const length = value.length;
  const copy = new Array<unknown>(length);
  let plain = '[';
  let canonical = '[';
  for (let i = 0; i < length; i++) {
    let item = walk(value[i], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    if (item === undefined) {
      item = null;
      plainText = canonicalText = 'null';
    }
    copy[i] = item;
    if (i > 0) {
      plain += ',';
      canonical += ',';
    }
    plain += plainText;
    canonical += canonicalText;
  }
  plainText = `${plain}]`;
  canonicalText = `${canonical}]`;
  return copy;
}

function walkObject(value: object, depth: number): unknown {
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
  const source = value as Record<string, unknown>;
  // Own enumerable string keys, in the order JSON.stringify writes them (integer-like keys first).
  const keys = Object.keys(source);
  const copy: Record<string, unknown> = {};
  if (keys.length === 1 && keys[0] !== '__proto__') {
    // One key (a tool's single argument, a marker): nothing to sort, no pieces to keep.
    const key = keys[0];
    const item = walk(source[key], depth + 1);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    if (item === undefined) {
      plainText = canonicalText = '{}';
      return copy;
    }
    copy[key] = item;
    const quoted = quotedKey(key);
    plainText = `{${quoted}${plainText}}`;
    canonicalText = `{${quoted}${canonicalText}}`;
    return copy;
  }
  let plain = '{';
  // Each kept key's `"key":canonical` piece, kept sorted on the shared stacks above `base` (nested
  // objects push above this one's and are gone again before it goes on), so no arrays per object.
  const base = stackTop;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const item = walk(source[key], depth + 1);
    if (item === NOT_PLAIN) {
      stackTop = base;
      return NOT_PLAIN;
    }
    if (item === undefined) continue;
    // An own "__proto__" (JSON.parse makes one) must stay an own key, not become the copy's prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
    const quoted = quotedKey(key);
    plain += plain === '{' ? quoted + plainText : `,${quoted}${plainText}`;
    // Insertion sort by UTF-16 code units (the canonical order): objects here have a handful of keys.
    let at = stackTop++;
    while (at > base && sortedKeys[at - 1] > key) {
      sortedKeys[at] = sortedKeys[at - 1];
      sortedPieces[at] = sortedPieces[at - 1];
      at--;
    }
    sortedKeys[at] = key;
    sortedPieces[at] = quoted + canonicalText;
  }
  let canonical = '{';
  for (let i = base; i < stackTop; i++) canonical += i === base ? sortedPieces[i] : `,${sortedPieces[i]}`;
  stackTop = base;
  plainText = `${plain}}`;
  canonicalText = `${canonical}}`;
  return copy;
}

// The stacks `walkObject` sorts each object's keys and canonical pieces on, used up to `stackTop` (left
// in place above it rather than truncated: setting an array's length costs more than the slots).
const sortedKeys: string[] = [];
const sortedPieces: string[] = [];
let stackTop = 0;

// Keys written as `"key":`, kept for the keys a process sees again and again (a turn's own, a tool's
// arguments); bounded, so that arbitrary keys cannot grow it without end.
const quotedKeys = new Map<string, string>();
const MAX_QUOTED_KEYS = 1024;

/** `"key":`, as JSON writes an object's key. */
export function quotedKey(key: string): string {
  let text = quotedKeys.get(key);
  if (text === undefined) {
    text = `${jsonString(key)}:`;
    if (quotedKeys.size < MAX_QUOTED_KEYS) quotedKeys.set(key, text);
  }
  return text;
}

// Strings up to this length are checked here for what JSON escapes; a longer one goes to JSON.stringify,
// whose scan is faster than a loop here once the call costs less than the scan.
const SHORT = 128;

/**
 * `JSON.stringify(text)`. A short string with nothing to escape (no quote, backslash, control character
 * or surrogate) is quoted as it is: most of a turn's strings (kinds, roles, ids, names) and every node id
 * are, and the native call costs more than the check.
 */
export function jsonString(text: string): string {
  if (text.length > SHORT) return JSON.stringify(text);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}
