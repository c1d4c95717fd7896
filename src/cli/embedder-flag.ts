// `--embedder` (and INDUSAGI_EMBEDDER): how a command's memory recalls, read with the rest of the command line.
import { CliUsageError } from './errors.js';

/** `--embedder`: `auto` (the default) is the offline embedder when installed, else words only. */
export type EmbedderFlag = 'auto' | 'offline' | 'none';

export const EMBEDDER_FLAGS: readonly EmbedderFlag[] = ['auto', 'offline', 'none'];

/** Reads `--embedder` (or INDUSAGI_EMBEDDER when the flag is absent); anything else is a `CliUsageError`. */
export function parseEmbedderFlag(value: string | undefined, env: NodeJS.ProcessEnv = {}): EmbedderFlag {
  const given = value ?? (env.INDUSAGI_EMBEDDER || undefined);
  if (given === undefined) return 'auto';
  if ((EMBEDDER_FLAGS as readonly string[]).includes(given)) return given as EmbedderFlag;
  const from = value === undefined ? 'INDUSAGI_EMBEDDER' : '--embedder';
  throw new CliUsageError(`${from} must be one of ${EMBEDDER_FLAGS.join(', ')}, not ${JSON.stringify(given)}`);
}
