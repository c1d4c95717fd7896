import { IndusagiError, isErrorNamed } from '../errors/index.js';

/**
 * A command line the `indusagi` command cannot act on: an unknown command, flag, session id or node
 * id. It is reported as one line and a non-zero exit, before anything stored is touched.
 */
export class CliUsageError extends IndusagiError {
  constructor(message: string) {
    super('cli_usage', message);
  }
  static override isInstance(error: unknown): error is CliUsageError {
    return isErrorNamed(error, 'CliUsageError');
  }
}
