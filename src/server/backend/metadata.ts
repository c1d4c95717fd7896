import { ServerRequestError } from '../errors.js';
import { nestedDeeperThan } from '../json-depth.js';

/** The most a thread's metadata may be, as JSON: every thread list carries it, up to 100 threads a page. */
export const MAX_METADATA_BYTES = 64 * 1024;
/** How deep a thread's metadata may nest. */
export const MAX_METADATA_DEPTH = 32;

/**
 * `metadata` as JSON, once it is known to be within the limits a thread keeps (a `ServerRequestError`,
 * 400, otherwise): checked before anything is stored, so a refused create or PATCH changes nothing.
 */
export function storableMetadata(metadata: Record<string, unknown>): string {
  if (nestedDeeperThan(metadata, MAX_METADATA_DEPTH))
    throw new ServerRequestError(`A thread's metadata may nest at most ${MAX_METADATA_DEPTH} levels deep.`);
  const text = JSON.stringify(metadata);
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_METADATA_BYTES)
    throw new ServerRequestError(
      `The thread's metadata would be ${bytes} bytes as JSON, over the ${MAX_METADATA_BYTES} bytes a thread keeps; remove keys (set them to null) to make room.`,
    );
  return text;
}

/** A thread's metadata with `changes` merged in, key by key; a key set to null is removed. */
export function mergeMetadata(current: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
