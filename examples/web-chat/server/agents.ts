import { SessionLockedError } from 'indusagi/store';
import type { Agent } from 'indusagi';
import { RefusedRequestError } from './refused.js';

type Held = { opening: Promise<Agent>; holders: number };

/**
 * The conversations' agents, each alive only while requests use it. An open agent holds its
 * session's writer lock (the file store's lock file, PostgreSQL's lease), so an agent kept for the
 * server's life would keep every other server out of the conversation for good. Here the first
 * request for a conversation opens its agent, requests that overlap on this server share it (their
 * runs queue on the one agent, as before), and the last one to finish closes it, which persists and
 * hands the session back. Nothing is lost in between: every run persists as it settles, a run
 * waiting for approval included, and a fresh agent reads it all back from the store.
 */
export class ConversationAgents {
  private readonly held = new Map<string, Held>();
  /** Closes under way, so the next request for that session opens only once the lock is given back. */
  private readonly closing = new Map<string, Promise<void>>();
  /** The requests using each conversation, until their work is done. */
  private readonly uses = new Map<string, Set<Promise<unknown>>>();
  private stopped = false;

  constructor(private readonly makeAgent: (sessionId: string) => Agent) {}

  /**
   * Runs `work` with the conversation's agent. `release` lets go early (idempotent): a streamed reply
   * calls it before its last frame, so the client hears the end only once the session is free for its
   * next request, to whichever server. A conversation another writer holds is refused (409
   * `conversation_busy`) before `work` starts, so nothing was sent and nothing is lost.
   */
  use<T>(sessionId: string, work: (agent: Agent, release: () => Promise<void>) => Promise<T>): Promise<T> {
    const using = this.using(sessionId, work);
    let uses = this.uses.get(sessionId);
    if (uses === undefined) this.uses.set(sessionId, (uses = new Set()));
    uses.add(using);
    const done = () => {
      uses.delete(using);
      if (uses.size === 0 && this.uses.get(sessionId) === uses) this.uses.delete(sessionId);
    };
    using.then(done, done);
    return using;
  }

  /**
   * Resolves once every request using the conversation now has finished, whatever it did after its
   * reply (a stopped reply is recorded then), so what is shown next includes it. Requests that start
   * later are not waited for.
   */
  async settled(sessionId: string): Promise<void> {
    await Promise.allSettled([...(this.uses.get(sessionId) ?? [])]);
  }

  private async using<T>(sessionId: string, work: (agent: Agent, release: () => Promise<void>) => Promise<T>): Promise<T> {
    const held = this.hold(sessionId);
    let released: Promise<void> | undefined;
    const release = () => (released ??= this.letGo(sessionId, held));
    let agent: Agent;
    try {
      agent = await held.opening;
    } catch (error) {
      await release();
      throw error;
    }
    let result: T;
    try {
      result = await work(agent, release);
    } catch (error) {
      // A failed close must not hide why the request failed: both are reported.
      await release().catch((closeError: unknown) => {
        throw new AggregateError([error, closeError], `${messageOf(error)}; closing the agent failed too: ${messageOf(closeError)}`);
      });
      throw error;
    }
    await release();
    return result;
  }

  /**
   * `work` with the conversation's agent if a request on this server has it open (sharing it, so it
   * stays open meanwhile), else null. Its runs queue on that agent, so `work` sees the session once
   * they are done, as its writer does, rather than reading the file under a writer mid-append.
   */
  async ifOpen<T>(sessionId: string, work: (agent: Agent) => Promise<T>): Promise<T | null> {
    if (!this.held.has(sessionId)) return null;
    return this.use(sessionId, work);
  }

  /** Closes every agent still open (their runs end first: the server's connections are gone by now). */
  async closeAll(): Promise<void> {
    this.stopped = true;
    const closes = [...this.held.values()].map((held) => held.opening.then(closeAgent, reportedElsewhere));
    this.held.clear();
    const outcomes = await Promise.allSettled([...closes, ...this.closing.values()]);
    const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
    if (failures.length > 0)
      throw new AggregateError(failures, `closing ${failures.length} conversation agent(s) failed: ${failures.map(messageOf).join('; ')}`);
  }

  private hold(sessionId: string): Held {
    if (this.stopped) throw new RefusedRequestError(503, 'shutting_down', 'The server is shutting down.');
    let held = this.held.get(sessionId);
    if (held === undefined) {
      held = { opening: this.open(sessionId), holders: 0 };
      this.held.set(sessionId, held);
    }
    held.holders += 1;
    return held;
  }

  private async open(sessionId: string): Promise<Agent> {
    // A close that failed reported its error to the request that closed it; opening again tells this
    // one whether the session is usable (a lock still held is refused below).
    await this.closing.get(sessionId)?.catch(reportedElsewhere);
    const agent = this.makeAgent(sessionId);
    try {
      // Opening the session takes its writer lock now, so a busy conversation is refused before any reply starts.
      await agent.resume(sessionId);
    } catch (error) {
      await agent.close();
      if (SessionLockedError.isInstance(error)) {
        throw new RefusedRequestError(
          409,
          'conversation_busy',
          'This conversation is busy elsewhere (another server is writing a reply to it); try again once that reply is done.',
          { cause: error },
        );
      }
      throw error;
    }
    return agent;
  }

  private async letGo(sessionId: string, held: Held): Promise<void> {
    held.holders -= 1;
    if (held.holders > 0) return;
    if (this.held.get(sessionId) === held) this.held.delete(sessionId);
    const closing = held.opening.then(closeAgent, reportedElsewhere);
    this.closing.set(sessionId, closing);
    try {
      await closing;
    } finally {
      if (this.closing.get(sessionId) === closing) this.closing.delete(sessionId);
    }
  }
}

const closeAgent = (agent: Agent): Promise<void> => agent.close();

// An agent that never opened has nothing to close, and a close that failed has nothing more to do:
// either error already went to the requests that awaited it.
const reportedElsewhere = (): void => {};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `parts`, then `release()` before the stream ends: the client hears the end once the session is free again. */
export async function* releasingAtEnd<T>(parts: AsyncIterable<T>, release: () => Promise<void>): AsyncGenerator<T> {
  try {
    yield* parts;
  } finally {
    await release();
  }
}
