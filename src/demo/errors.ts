import { IndusagiError, isErrorNamed } from '../errors/index.js';

/** A request body the demo model cannot answer; the server turns it into an HTTP 400. */
export class DemoRequestError extends IndusagiError {
  constructor(message: string) {
    super('demo_bad_request', message);
  }
  static override isInstance(error: unknown): error is DemoRequestError {
    return isErrorNamed(error, 'DemoRequestError');
  }
}
