import { createHash, randomBytes } from 'node:crypto';

const COOKIE = 'indusagi_web_chat';
const TOKEN = /^[A-Za-z0-9_-]{43}$/; // 32 random bytes, base64url
const MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

/**
 * Each browser is a tenant of the agent server. Loading the page hands a browser without one a token
 * of 32 random bytes in an HttpOnly (page scripts cannot read it), SameSite=Strict (other sites'
 * requests do not carry it) cookie; the server's `authenticate` hook names the browser after a hash of
 * it (`web-<32 hex digits>`: the files on disk do not give the token away) and uses that name as its
 * tenant and user. Everything the server keeps is walled per tenant, so another browser's
 * conversations, runs, streams and memories answer 404 or nothing. A token the page never minted is
 * just another new browser; a request without one is refused (401).
 */
export const browsers = {
  /** The browser a request comes from, or null when it carries no token. */
  of(request: Request): string | null {
    const token = tokenOf(request.headers.get('cookie'));
    return token === null ? null : `web-${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
  },

  /** The `set-cookie` header that gives a browser without a token its own, or null when it has one. */
  cookieFor(request: Request): string | null {
    if (tokenOf(request.headers.get('cookie')) !== null) return null;
    const token = randomBytes(32).toString('base64url');
    return `${COOKIE}=${token}; Path=/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict`;
  },
};

function tokenOf(header: string | null): string | null {
  for (const pair of (header ?? '').split(';')) {
    const [name, value] = pair.trim().split('=', 2);
    if (name === COOKIE && value !== undefined && TOKEN.test(value)) return value;
  }
  return null;
}
