import type { ServerResponse } from 'node:http';
import { ClientDisconnectedError } from './errors.js';
import { PART_STREAM_HEADERS } from './frames.js';
import { PartPump } from './pump.js';
import type { PartSource, PartStreamOptions, PartStreamOutcome } from './pump.js';

export type SendPartsOptions = PartStreamOptions & {
  /** Extra response headers (CORS and the like); ignored if headers were already sent. */
  headers?: Record<string, string>;
};

/**
 * Streams parts as NDJSON frames into a `node:http` response, honouring backpressure. When the client
 * disconnects, the source's signal fires and its iterator's `return()` is called. Resolves once the
 * response is finished (or abandoned) and the source is closed.
 */
export async function sendParts(res: ServerResponse, source: PartSource, options: SendPartsOptions = {}): Promise<PartStreamOutcome> {
  const pump = new PartPump(source, options);
  const onClose = () => {
    if (!res.writableFinished) void pump.cancel(new ClientDisconnectedError());
  };
  res.once('close', onClose);
  if (res.destroyed) onClose();
  if (!res.headersSent) {
    res.writeHead(200, { ...PART_STREAM_HEADERS, ...options.headers });
    // Lets the client see the status before the first part, which may be a long model call away.
    res.flushHeaders();
  }
  try {
    for (let line = await pump.next(); line !== null; line = await pump.next()) {
      if (!res.write(line)) await drained(res);
    }
    if (pump.outcome !== 'disconnected') res.end();
  } finally {
    res.off('close', onClose);
  }
  await pump.closed();
  return pump.outcome ?? 'disconnected';
}

/** Resolves once `res` can take more (or is gone). */
export function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
