import { IndusagiError } from '../../errors/index.js';

/** A request body the demo model cannot answer; the server turns it into an HTTP 400. */
export class DemoRequestError extends IndusagiError {
  static override readonly errorName: string = 'DemoRequestError';
  constructor(message: string) {
    super('demo_bad_request', message);
  }
}
