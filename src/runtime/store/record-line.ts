import type { SessionNode, SessionRecord } from '../contract/index.js';

// The JSON text of the turn copies graphs made most recently (see `nodeIdentity`), each beside the copy
// it was parsed from: that text is what `JSON.stringify(copy)` would write again, so a store writes it
// as it is instead of serializing the turn a second time. A store writes a node soon after its graph
// made it (the conductor persists every step), so a few recent ones are all that is ever looked for;
// a small ring, compared by identity, costs no allocation and no weak-map bookkeeping for the
// collector. A node not found in it is serialized as it is: the same text, only slower.
const RING = 64;
const copies: Array<object | undefined> = new Array<object | undefined>(RING).fill(undefined);
const texts: string[] = new Array<string>(RING).fill('');
let next = 0;

/** Remembers that `copy` was parsed from `text`. */
export function rememberTurnText(copy: object, text: string): void {
  copies[next] = copy;
  texts[next] = text;
  next = (next + 1) % RING;
}

function turnText(turn: unknown): string | undefined {
  // Most recent first: the node being written was usually made last.
  for (let i = 1, at = next - 1; i <= RING; i++, at--) {
    if (at < 0) at = RING - 1;
    if (copies[at] === turn) return texts[at];
  }
  return undefined;
}

/**
 * `JSON.stringify(record)`, with a node's turn written from the text its graph parsed the node's turn
 * from when it made it (see `rememberTurnText`): each node is serialized once on its way to a store.
 * The turn a graph hands out is its own copy, never the caller's object; a copy changed in place after
 * it was made would no longer match its id, and is stored as it was made.
 */
export function recordLine(record: SessionRecord): string {
  if (record.type !== 'node') return JSON.stringify(record);
  const node = record.node;
  const text = typeof node === 'object' && node !== null ? turnText(node.turn) : undefined;
  if (text === undefined) return JSON.stringify(record);
  const keys = Object.keys(record);
  // Only a record of exactly `type` and `node` (as a writer makes it), without toJSON anywhere on the way.
  if (keys.length !== 2 || keys[0] !== 'type' || keys[1] !== 'node' || hasToJson(record) || hasToJson(node)) return JSON.stringify(record);
  return `{"type":"node","node":${nodeText(node, text)}}`;
}

/** `JSON.stringify(node)`, the turn written as `turnText`: own keys in order, undefined values left out. */
function nodeText(node: SessionNode, turnText: string): string {
  const keys = Object.keys(node);
  // The order a graph makes a node in (see `newNode`), written without looking at the keys' names again.
  let out: string;
  let from: number;
  if (
    keys.length >= 4 &&
    keys[0] === 'id' &&
    keys[1] === 'parent' &&
    keys[2] === 'turn' &&
    keys[3] === 'at' &&
    typeof node.id === 'string'
  ) {
    const parent = node.parent === null ? 'null' : JSON.stringify(node.parent);
    const at = JSON.stringify(node.at);
    out = `{"id":${JSON.stringify(node.id)}${parent === undefined ? '' : `,"parent":${parent}`},"turn":${turnText}${at === undefined ? '' : `,"at":${at}`}`;
    from = 4;
  } else {
    out = '{';
    from = 0;
  }
  for (let i = from; i < keys.length; i++) {
    const key = keys[i];
    const value = key === 'turn' ? turnText : JSON.stringify((node as Record<string, unknown>)[key]);
    if (value === undefined) continue;
    out += `${out === '{' ? '' : ','}${JSON.stringify(key)}:${value}`;
  }
  return `${out}}`;
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
