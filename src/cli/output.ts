import { IndusagiError } from '../errors/index.js';
import { InvalidSessionIdError, UnknownNodeError } from '../runtime/store/index.js';
import { CliUsageError } from './errors.js';
import { terminalText } from './safe-text.js';
import { MemoryConflictError, MemoryInputError } from '../memory/index.js';
import { PostgresOptionsError } from '../postgres/index.js';
import { SettingsFileError } from './approvals.js';
import { UserConfigError } from './trust.js';

/** Bad input, as opposed to a failure while working: the user can fix it by changing what they typed. */
export function isBadInput(error: unknown): boolean {
  return (
    CliUsageError.isInstance(error) ||
    InvalidSessionIdError.isInstance(error) ||
    UnknownNodeError.isInstance(error) ||
    MemoryInputError.isInstance(error) ||
    MemoryConflictError.isInstance(error) ||
    PostgresOptionsError.isInstance(error) ||
    SettingsFileError.isInstance(error) ||
    UserConfigError.isInstance(error)
  );
}

/**
 * Errors are reported on one line; the typed ones already carry a message written for people. A
 * message can quote what a model, a server or a file said, so it is made safe for a terminal too.
 */
export function oneLine(error: unknown): string {
  const message = IndusagiError.isInstance(error) || error instanceof Error ? error.message : String(error);
  return terminalText(message.replace(/\s*\n\s*/g, ' '));
}
