import { hash } from 'node:crypto';
import type { Turn } from '../contract/turn.js';

/** The fields a node id is derived from; `condenses` is deliberately not among them. */
export type NodeIdentity = { parent: string | null; turn: Turn; at: number };

/**
 * A node's id: sha256 (hex) of the canonical JSON (sorted keys) of exactly `{ parent, turn, at }`.
 * Extra properties on the argument are ignored, so a whole `SessionNode` can be passed to re-check it.
 */
export function hashNode({ parent, turn, at }: NodeIdentity): string {
  // `{ at, parent, turn }` in key order, written out: the object itself is never built or sorted.
  const fields = [field('at', at), field('parent', parent), field('turn', turn)].filter((text) => text !== undefined);
  // The one-shot hash: a third of createHash().update().digest() for a step's few hundred bytes.
  return hash('sha256', `{${fields.join(',')}}`, 'hex');
}

/** `hashNode` for a new node whose turn is already canonical JSON (`turnJson`) and whose fields are checked. */
export function nodeId(parent: string | null, turnJson: string, at: number): string {
  return hash('sha256', `{"at":${String(at)},"parent":${parent === null ? 'null' : JSON.stringify(parent)},"turn":${turnJson}}`, 'hex');
}

function field(key: string, value: unknown): string | undefined {
  const text = canonicalJson(value);
  return text === undefined ? undefined : `"${key}":${text}`;
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
