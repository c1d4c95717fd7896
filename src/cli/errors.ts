import { IndusagiError } from '../errors/index.js';

/**
 * A command line the `indusagi` command cannot act on: an unknown command, flag, session id or node
 * id. It is reported as one line and a non-zero exit, before anything stored is touched.
 */
export class CliUsageError extends IndusagiError {
  static override readonly errorName: string = 'CliUsageError';
  constructor(message: string) {
    super('cli_usage', message);
  }
}
