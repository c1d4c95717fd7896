import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { BearerToken } from '../../server/index.js';
import { CliUsageError } from '../errors.js';

/** The tokens `indusagi serve` accepts, and the one it made up when it was given none. */
export type ServeTokens = { tokens: BearerToken[]; generated: string | undefined };

/**
 * `--tokens FILE` (a JSON array of `{ token, tenant, user, readOnly? }`), else `INDUSAGI_SERVER_TOKEN`
 * (one token for tenant and user `default`), else, on one machine only, a random token made now and
 * printed once: the server never runs open. Servers sharing a database must share their tokens, so
 * there the command refuses to make one up.
 */
export async function serveTokens(file: string | undefined, env: NodeJS.ProcessEnv, shared: boolean): Promise<ServeTokens> {
  if (file !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new CliUsageError(`--tokens ${file}: not a readable JSON file (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed) || parsed.length === 0)
      throw new CliUsageError(`--tokens ${file} must hold a non-empty JSON array of { "token", "tenant", "user" }`);
    return { tokens: parsed as BearerToken[], generated: undefined };
  }
  const one = env.INDUSAGI_SERVER_TOKEN;
  if (one !== undefined && one !== '') return { tokens: [{ token: one, tenant: 'default', user: 'default' }], generated: undefined };
  if (shared)
    throw new CliUsageError(
      'serve --database needs --tokens FILE or INDUSAGI_SERVER_TOKEN: every server on the database must accept the same tokens',
    );
  const generated = randomBytes(24).toString('base64url');
  return { tokens: [{ token: generated, tenant: 'default', user: 'default' }], generated };
}
