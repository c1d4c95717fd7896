import { IndusagiError, isErrorNamed } from '../errors/index.js';

/** The abort reason a part stream's source sees when the client went away before the end. */
export class ClientDisconnectedError extends IndusagiError {
  constructor() {
    super('client_disconnected', 'The client disconnected before the part stream ended.');
  }
  static override isInstance(error: unknown): error is ClientDisconnectedError {
    return isErrorNamed(error, 'ClientDisconnectedError');
  }
}

/** The server answered a part-stream request with a non-2xx status. */
export class PartStreamHttpError extends IndusagiError {
  constructor(readonly status: number, readonly body: string) {
    super('part_stream_http', `The part stream request failed with HTTP ${status}${body ? `: ${body}` : ''}.`);
  }
  static override isInstance(error: unknown): error is PartStreamHttpError {
    return isErrorNamed(error, 'PartStreamHttpError');
  }
}

/** The response is not a well-formed part stream (wrong content type, a line that is not a valid frame, a line too long). */
export class PartStreamProtocolError extends IndusagiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('part_stream_protocol', message, options);
  }
  static override isInstance(error: unknown): error is PartStreamProtocolError {
    return isErrorNamed(error, 'PartStreamProtocolError');
  }
}

/** The connection ended before the server's end frame: the server crashed, or the network cut the stream. */
export class PartStreamTruncatedError extends IndusagiError {
  constructor(message = 'The part stream ended without its end frame; the server or the network cut it short.', options?: { cause?: unknown }) {
    super('part_stream_truncated', message, options);
  }
  static override isInstance(error: unknown): error is PartStreamTruncatedError {
    return isErrorNamed(error, 'PartStreamTruncatedError');
  }
}

/** The server's source failed and sent an error frame; `remoteKind` is the kind it reported. */
export class RemoteStreamError extends IndusagiError {
  constructor(readonly remoteKind: string, message: string) {
    super('remote_error', message);
  }
  static override isInstance(error: unknown): error is RemoteStreamError {
    return isErrorNamed(error, 'RemoteStreamError');
  }
}
