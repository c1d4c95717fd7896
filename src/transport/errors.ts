import { IndusagiError } from '../errors/index.js';

/** The abort reason a part stream's source sees when the client went away before the end. */
export class ClientDisconnectedError extends IndusagiError {
  static override readonly errorName: string = 'ClientDisconnectedError';
  constructor() {
    super('client_disconnected', 'The client disconnected before the part stream ended.');
  }
}

/** The server answered a part-stream request with a non-2xx status. */
export class PartStreamHttpError extends IndusagiError {
  static override readonly errorName: string = 'PartStreamHttpError';
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super('part_stream_http', `The part stream request failed with HTTP ${status}${body ? `: ${body}` : ''}.`);
  }
}

/** The response is not a well-formed part stream (wrong content type, a line that is not a valid frame, a line too long). */
export class PartStreamProtocolError extends IndusagiError {
  static override readonly errorName: string = 'PartStreamProtocolError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('part_stream_protocol', message, options);
  }
}

/** The connection ended before the server's end frame: the server crashed, or the network cut the stream. */
export class PartStreamTruncatedError extends IndusagiError {
  static override readonly errorName: string = 'PartStreamTruncatedError';
  constructor(
    message = 'The part stream ended without its end frame; the server or the network cut it short.',
    options?: { cause?: unknown },
  ) {
    super('part_stream_truncated', message, options);
  }
}

/** The server's source failed and sent an error frame; `remoteKind` is the kind it reported. */
export class RemoteStreamError extends IndusagiError {
  static override readonly errorName: string = 'RemoteStreamError';
  constructor(
    readonly remoteKind: string,
    message: string,
  ) {
    super('remote_error', message);
  }
}
