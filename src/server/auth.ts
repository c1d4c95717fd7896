import { createHash } from 'node:crypto';
import { ServerOptionsError } from './errors.js';
import type { Authenticate, Principal } from './types.js';

/** One accepted token and whom it stands for. */
export type BearerToken = { token: string } & Principal;

const MIN_TOKEN_LENGTH = 16;

/**
 * `Authorization: Bearer <token>` against a fixed set of tokens, each standing for a tenant and a
 * user (and `readOnly` for a token that may only read): what `indusagi serve` uses. Tokens are kept
 * and compared as SHA-256 digests, so a lookup takes the same time whichever characters match, and a
 * token shorter than 16 characters is refused here (it could be guessed).
 */
export function bearerTokens(tokens: readonly BearerToken[]): Authenticate {
  const byDigest = new Map<string, Principal>();
  for (const entry of tokens) {
    if (typeof entry?.token !== 'string' || entry.token.length < MIN_TOKEN_LENGTH || /\s/.test(entry.token)) {
      throw new ServerOptionsError(`A bearer token must be at least ${MIN_TOKEN_LENGTH} characters without spaces.`);
    }
    const principal = checkPrincipal(entry);
    const key = digest(entry.token);
    if (byDigest.has(key)) throw new ServerOptionsError('The same bearer token is listed twice.');
    byDigest.set(key, principal);
  }
  return (request) => {
    const header = request.headers.get('authorization');
    const match = header === null ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (match === null) return null;
    return byDigest.get(digest(match[1])) ?? null;
  };
}

/** A principal as the server takes it from an `authenticate` hook: a non-empty tenant and user. */
export function checkPrincipal(given: unknown): Principal {
  const p = given as Partial<Principal> | null;
  const ok = (value: unknown) => typeof value === 'string' && value !== '' && value.length <= 200 && !value.includes('\u0000');
  if (typeof p !== 'object' || p === null || !ok(p.tenant) || !ok(p.user)) {
    throw new ServerOptionsError('A principal needs a tenant and a user: non-empty strings of at most 200 characters.');
  }
  return { tenant: p.tenant!, user: p.user!, ...(p.readOnly === true && { readOnly: true }) };
}

function digest(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
