import { createHash } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import type { Turn } from '../contract/turn.js';

/** The fields a node id is derived from; `condenses` is deliberately not among them. */
export type NodeIdentity = { parent: string | null; turn: Turn; at: number };

/**
 * A node's id: sha256 (hex) of the canonical JSON (sorted keys) of exactly `{ parent, turn, at }`.
 * Extra properties on the argument are ignored, so a whole `SessionNode` can be passed to re-check it.
 */
export function hashNode({ parent, turn, at }: NodeIdentity): string {
  return createHash('sha256').update(stableStringify({ parent, turn, at })).digest('hex');
}
