import { hash } from 'node:crypto';
import type { Turn } from '../contract/turn.js';
import { jsonString, quotedKey } from './json-copy.js';

/** The fields a node id is derived from; `condenses` is deliberately not among them. */
export type NodeIdentity = { parent: string | null; turn: Turn; at: number };

/**
 * A node's id: sha256 (hex) of the canonical JSON (sorted keys) of exactly `{ parent, turn, at }`.
 * Extra properties on the argument are ignored, so a whole `SessionNode` can be passed to re-check it.
 */
export function hashNode({ parent, turn, at }: NodeIdentity): string {
  return hashIdentity(parent, canonicalJson(turn), at);
}

/**
 * `hashNode` for a turn whose canonical JSON is already written (`turnJson`; undefined for a turn JSON
 * has no text for): the parent's and the time's canonical texts, then `hashIdentityText`.
 */
export function hashIdentity(parent: unknown, turnJson: string | undefined, at: unknown): string {
  // The common case, a finite time and a string or null parent, written directly (what canonicalJson writes for them).
  const atText = typeof at === 'number' && Number.isFinite(at) ? String(at) : canonicalJson(at);
  const parentText = parent === null ? 'null' : typeof parent === 'string' ? jsonString(parent) : canonicalJson(parent);
  return hashIdentityText(atText, parentText, turnJson);
}

/**
 * The id of the node whose identity's parts have these canonical texts (undefined: JSON has none, and
 * the key is left out): the one place the identity's text is put together, `{ at, parent, turn }` in
 * key order, without building or sorting the object. Hashed one-shot: a third of
 * createHash().update().digest() for a step's few hundred bytes.
 */
export function hashIdentityText(atText: string | undefined, parentText: string | undefined, turnJson: string | undefined): string {
  let text = '';
  if (atText !== undefined) text = `"at":${atText}`;
  if (parentText !== undefined) text += `${text === '' ? '' : ','}"parent":${parentText}`;
  if (turnJson !== undefined) text += `${text === '' ? '' : ','}"turn":${turnJson}`;
  return hash('sha256', `{${text}}`, 'hex');
}

/**
 * Canonical JSON: `JSON.stringify` with every object's keys sorted (by UTF-16 code units), no spaces;
 * undefined for what JSON has no text for (undefined, a function, a symbol), which an object omits and
 * an array writes as null; `toJSON` honoured, non-finite numbers null, a cycle a TypeError. It is the
 * text fast-json-stable-stringify writes (ids made before this function must not change; the tests
 * compare the two), in half its time: every step of a run hashes its nodes, so this is on the hot path.
 */
export function canonicalJson(value: unknown, seen: unknown[] = []): string | undefined {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON(): unknown }).toJSON();
  }
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value !== 'object') return value === undefined ? undefined : JSON.stringify(value);
  if (value === null) return 'null';
  if (seen.includes(value)) throw new TypeError('Converting circular structure to JSON');
  seen.push(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (canonicalJson(value[i], seen) ?? 'null');
    out += ']';
  } else {
    out = '';
    const keys = Object.keys(value).sort();
    for (const key of keys) {
      const text = canonicalJson((value as Record<string, unknown>)[key], seen);
      if (text !== undefined) out += `${out === '' ? '' : ','}${JSON.stringify(key)}:${text}`;
    }
    out = `{${out}}`;
  }
  seen.pop();
  return out;
}

/**
 * `canonicalJson` of a value `JSON.parse` made: the same text, without what such a value cannot hold
 * (toJSON, undefined, functions, cycles, which cost a look at every value). A node whose turn
 * `plainJsonCopy` could not copy is hashed from its JSON copy this way.
 */
export function canonicalJsonOfParsed(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value !== 'object') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJsonOfParsed(value[i]);
    return `${out}]`;
  }
  const keys = Object.keys(value);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    out += (i === 0 ? '' : ',') + quotedKey(keys[i]) + canonicalJsonOfParsed((value as Record<string, unknown>)[keys[i]]);
  }
  return `${out}}`;
}
