import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RefusedRequestError } from './refused.js';

const COOKIE = 'indusagi_web_chat';
const TOKEN = /^[A-Za-z0-9_-]{43}$/; // 32 random bytes, base64url
const MAX_AGE_SECONDS = 30 * 24 * 60 * 60;
const CONVERSATION = /^web-[0-9a-f]{32}(-[0-9a-f]{16})?$/;
const BROWSER_LENGTH = 'web-'.length + 32;

/**
 * Conversations per browser. A browser's first thread request mints a token of 32 random bytes and
 * hands it back in an HttpOnly (page scripts cannot read it), SameSite=Strict (other sites' requests
 * do not carry it) cookie. Its conversations are sessions named after a hash of the token (so the
 * session files on disk do not give the token away): `web-<hash>` first, `web-<hash>-<random>` for
 * each one it starts after. A conversation id of another browser is not one of this browser's, and
 * a token the server never minted is just another new browser.
 */
export class BrowserSessions {
  /** The browser's name, the prefix of its conversations; a browser without a token gets one (and its cookie, set on `res`). */
  open(req: IncomingMessage, res: ServerResponse): string {
    let token = tokenOf(req);
    if (token === null) {
      token = randomBytes(32).toString('base64url');
      res.setHeader('set-cookie', `${COOKIE}=${token}; Path=/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict`);
    }
    return browserOf(token);
  }

  /** The name of a browser that already has a session, for calls that continue one. */
  existing(req: IncomingMessage): string {
    const token = tokenOf(req);
    if (token === null)
      throw new RefusedRequestError(401, 'no_session', 'This browser has no chat session yet; reload the page to start one.');
    return browserOf(token);
  }

  /** The conversation `requested` of this browser (its first one when none is named); another browser's is unknown here. */
  conversation(browser: string, requested: unknown): string {
    if (requested === undefined || requested === null || requested === '') return browser;
    if (typeof requested !== 'string' || !CONVERSATION.test(requested) || (requested !== browser && !requested.startsWith(`${browser}-`))) {
      throw unknownConversation();
    }
    return requested;
  }

  /** The browser a conversation of this server belongs to (its id starts with the browser's name). */
  ownerOf(sessionId: string): string {
    return sessionId.slice(0, BROWSER_LENGTH);
  }

  /** A fresh conversation id for this browser; its session starts with its first prompt. */
  newConversation(browser: string): string {
    return `${browser}-${randomBytes(8).toString('hex')}`;
  }

  /** Whether `sessionId` is one of this browser's conversations. */
  owns(browser: string, sessionId: string): boolean {
    return sessionId === browser || (CONVERSATION.test(sessionId) && sessionId.startsWith(`${browser}-`));
  }
}

function browserOf(token: string): string {
  return `web-${createHash('sha256').update(token).digest('hex').slice(0, 32)}`;
}

function tokenOf(req: IncomingMessage): string | null {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const [name, value] = pair.trim().split('=', 2);
    if (name === COOKIE && value !== undefined && TOKEN.test(value)) return value;
  }
  return null;
}

export function unknownConversation(): RefusedRequestError {
  return new RefusedRequestError(404, 'unknown_conversation', 'This browser has no such conversation.');
}
