import type { AgentPart } from '../parts/types.js';
import { IndusagiError } from '../errors/index.js';

/**
 * The wire format: newline-delimited JSON, one frame per line. A stream is any number of `part`
 * frames followed by exactly one `end` or `error` frame; a stream without either was cut short.
 */
export type PartFrame = { frame: 'part'; part: AgentPart } | { frame: 'error'; error: RemoteErrorInfo } | { frame: 'end' };

/** What the client learns about a server-side failure. */
export type RemoteErrorInfo = { kind: string; message: string };

export const PART_STREAM_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

export const PART_STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': PART_STREAM_CONTENT_TYPE,
  'cache-control': 'no-cache, no-transform',
  'x-content-type-options': 'nosniff',
  // Reverse proxies (nginx and friends) would otherwise hold parts back until a buffer fills.
  'x-accel-buffering': 'no',
};

/** One line of the wire format. Throws what `JSON.stringify` throws (cycles, BigInt). */
export function encodePartFrame(frame: PartFrame): string {
  return `${JSON.stringify(frame)}\n`;
}

/**
 * The default description sent to the client: an `IndusagiError`'s kind and message are meant for
 * users; anything else may carry internals (paths, keys, SQL), so the client only learns it failed.
 */
export function publicErrorInfo(error: unknown): RemoteErrorInfo {
  if (IndusagiError.isInstance(error)) return { kind: error.kind, message: error.message };
  return { kind: 'internal', message: 'Internal error' };
}
