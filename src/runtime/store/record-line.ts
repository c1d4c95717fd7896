import type { SessionNode, SessionRecord } from '../contract/index.js';
import { jsonString, quotedKey } from './json-copy.js';

/** The JSON texts of a new node's identity, as `nodeIdentity` wrote them while it made the node's id. */
export type NodeTexts = {
  /** `JSON.stringify(turn)` of the graph's copy of the turn (the caller's key order). */
  turn: string;
  /** `JSON.stringify(parent)`. */
  parent: string;
  /** `JSON.stringify(at)`. */
  at: string;
};

/**
 * The record of a node a graph made, `{ type: 'node', node }` like any node record, carrying the texts
 * the node was serialized to when it was made (its turn's text among them): a store writes it with
 * `recordLine` without serializing the turn again. The texts travel with the record through the append
 * path, in private fields (no JSON, spread or key listing sees them); a store that does not ask sees a
 * plain node record.
 */
export class NodeRecord {
  type: 'node';
  node: SessionNode;
  // What the node was made with: the texts describe these values, and hold only while the node keeps them.
  readonly #made: SessionNode;
  readonly #id: string;
  readonly #parent: string | null;
  readonly #turn: SessionNode['turn'];
  readonly #at: number;
  readonly #texts: NodeTexts;

  constructor(node: SessionNode, texts: NodeTexts) {
    this.type = 'node';
    this.node = node;
    this.#made = node;
    this.#id = node.id;
    this.#parent = node.parent;
    this.#turn = node.turn;
    this.#at = node.at;
    this.#texts = texts;
  }

  /**
   * `JSON.stringify(this)`, written from the texts the node was made with; undefined when the record
   * or its node is no longer as it was made (a field replaced, one added in front, a toJSON), which
   * `recordLine` then serializes as it is. A turn changed in place after it was made no longer matches
   * its id and is written as it was made: the graph's copy is its own, never the caller's object.
   */
  line(): string | undefined {
    const node = this.node;
    if (this.type !== 'node' || node !== this.#made || hasToJson(this) || hasToJson(node)) return undefined;
    if (node.id !== this.#id || node.parent !== this.#parent || node.turn !== this.#turn || node.at !== this.#at) return undefined;
    const recordKeys = Object.keys(this);
    if (recordKeys.length !== 2 || recordKeys[0] !== 'type' || recordKeys[1] !== 'node') return undefined;
    const keys = Object.keys(node);
    // The order a graph makes a node in (see `newNode`); the fields stored outside the id follow.
    if (keys.length < 4 || keys[0] !== 'id' || keys[1] !== 'parent' || keys[2] !== 'turn' || keys[3] !== 'at') return undefined;
    const texts = this.#texts;
    // The id is the sha256 hex the graph made: nothing in it to escape.
    let out = `{"type":"node","node":{"id":"${node.id}","parent":${texts.parent},"turn":${texts.turn},"at":${texts.at}`;
    for (let i = 4; i < keys.length; i++) {
      const value = flatJson((node as Record<string, unknown>)[keys[i]]);
      if (value !== undefined) out += `,${quotedKey(keys[i])}${value}`;
    }
    return `${out}}}`;
  }
}

/**
 * `JSON.stringify(record)`: for a node record a graph made (`NodeRecord`), written from the texts the
 * node was serialized to when it was made, so each node is serialized once on its way to a store.
 */
export function recordLine(record: SessionRecord): string {
  if (record instanceof NodeRecord) {
    const line = record.line();
    if (line !== undefined) return line;
  }
  return JSON.stringify(record);
}

function hasToJson(value: object): boolean {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/**
 * `JSON.stringify(value)`, written here for what a node stores outside its id (a model id, a usage of
 * token counts, a compaction marker): a string, a finite number, null, or a plain object of those.
 * Anything else goes to JSON.stringify.
 */
function flatJson(value: unknown): string | undefined {
  if (typeof value === 'string') return jsonString(value);
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype || hasToJson(value))
    return JSON.stringify(value);
  let out = '{';
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    let text: string;
    if (typeof field === 'number' && Number.isFinite(field)) text = String(field);
    else if (typeof field === 'string') text = jsonString(field);
    else if (field === null) text = 'null';
    else return JSON.stringify(value);
    out += `${out === '{' ? '' : ','}${quotedKey(key)}${text}`;
  }
  return `${out}}`;
}
