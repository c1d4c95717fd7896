import type { ServerRunEvent } from '../types.js';

/** A run's stream ends with exactly one of these: `settled` (settled or waiting) or `faulted`. */
export function isTerminal(event: ServerRunEvent): boolean {
  return event.kind === 'settled' || event.kind === 'faulted';
}
