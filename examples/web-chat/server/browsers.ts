import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent } from 'indusagi';
import { RefusedRequestError } from './refused.js';

const COOKIE = 'indusagi_web_chat';
const TOKEN = /^[A-Za-z0-9_-]{43}$/; // 32 random bytes, base64url
const MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

/**
 * One conversation per browser. A browser's first thread request mints a token of 32 random bytes
 * and hands it back in an HttpOnly (page scripts cannot read it), SameSite=Strict (other sites'
 * requests do not carry it) cookie; its session id is a hash of the token, so the session files on
 * disk do not give the token away. A token the server never minted is just another new browser.
 */
export class BrowserSessions {
  private readonly agents = new Map<string, Agent>();

  constructor(private readonly makeAgent: (sessionId: string) => Agent) {}

  /** The browser's agent; a browser without a token gets a new one (and its cookie, set on `res`). */
  open(req: IncomingMessage, res: ServerResponse): Agent {
    let token = tokenOf(req);
    if (token === null) {
      token = randomBytes(32).toString('base64url');
      res.setHeader('set-cookie', `${COOKIE}=${token}; Path=/; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Strict`);
    }
    return this.agentFor(token);
  }

  /** The agent of a browser that already has a session, for calls that continue one. */
  existing(req: IncomingMessage): Agent {
    const token = tokenOf(req);
    if (token === null) throw new RefusedRequestError(401, 'no_session', 'This browser has no chat session yet; reload the page to start one.');
    return this.agentFor(token);
  }

  async closeAll(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }

  private agentFor(token: string): Agent {
    let agent = this.agents.get(token);
    if (agent === undefined) {
      agent = this.makeAgent(`web-${createHash('sha256').update(token).digest('hex').slice(0, 32)}`);
      this.agents.set(token, agent);
    }
    return agent;
  }
}

function tokenOf(req: IncomingMessage): string | null {
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const [name, value] = pair.trim().split('=', 2);
    if (name === COOKIE && value !== undefined && TOKEN.test(value)) return value;
  }
  return null;
}
