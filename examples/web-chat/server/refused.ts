import { IndusagiError } from 'indusagi';

/** A request the server will not act on, answered with `status` and `{ kind, message }`. */
export class RefusedRequestError extends IndusagiError {
  static override readonly errorName: string = 'RefusedRequestError';
  constructor(
    readonly status: number,
    kind: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(kind, message, options);
  }
}

/** 400: the request itself is malformed (a field, the body, the path). */
export function badRequest(message: string, options?: { cause?: unknown }): RefusedRequestError {
  return new RefusedRequestError(400, 'bad_request', message, options);
}
