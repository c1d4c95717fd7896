import type { Agent } from '../../runtime/agent/index.js';
import type { ModelUsage } from '../../runtime/contract/model.js';
import type { SessionGraph } from '../../runtime/store/index.js';
import { RunFault } from '../../runtime/loop/index.js';
import { oneLine } from '../output.js';
import type { ChatDeps } from './deps.js';
import { lastCallUsage, statusLine } from './status.js';
import { askOnTerminal, questionOf, refuseQuestion } from './questions.js';

/**
 * What one chat is at, shared by the controller, its slash commands, session switching and the runs:
 * the agent (replaced when `/model` switches), whether a run is going, a `/resume` pick in progress,
 * what the status line shows, and how many things failed. It also says things: `info` and `fail`.
 */
export class ChatState {
  agent: Agent;
  running = false;
  /** After `/resume` without an id (piped): the sessions offered, numbered from 1; the next line picks one. */
  picking: string[] | null = null;
  /** Set by a failed run or command, so a piped session can exit non-zero. */
  failures = 0;
  private unsubscribe: () => void = () => undefined;
  /** The last model call's usage (this process's, or the stored branch's on open), for the status line. */
  private lastCall: ModelUsage | undefined;
  /** The session's billed tokens and cost, as the store read them last (the status line's tail). */
  private stored: { graph: SessionGraph } | undefined;

  constructor(
    readonly deps: ChatDeps,
    sessionId: string,
  ) {
    this.agent = deps.makeAgent(sessionId);
    this.attach();
  }

  get sessionId(): string {
    return this.agent.sessionId;
  }

  /**
   * `/model`: lets go of the agent, runs `between` (the switch), then puts an agent with the model in use
   * on the same session, whether the switch worked or not, so the chat always has one.
   */
  async replaceAgent(between: () => Promise<void>): Promise<void> {
    this.unsubscribe();
    await this.agent.close();
    try {
      await between();
    } finally {
      this.agent = this.deps.makeAgent(this.agent.sessionId);
      this.attach();
      await this.agent.resume(this.agent.sessionId);
    }
  }

  /** Lets go of the session (persisting what is left and releasing the writer lock). */
  async close(): Promise<void> {
    this.unsubscribe();
    await this.agent.close();
  }

  /** After a session is opened or forked: the last call's usage on its live branch, for the status line. */
  async readLastCall(): Promise<void> {
    if (this.deps.view.terminal === undefined) return;
    const graph = await this.deps.store.loadSession(this.sessionId, { whole: true });
    this.lastCall = lastCallUsage(graph);
    this.stored = { graph };
    this.updateStatus();
  }

  /** The status line after a run: read back from the store, so it bills what `sessions show` bills. */
  async showStatus(): Promise<void> {
    if (this.deps.view.terminal === undefined) return;
    try {
      this.stored = { graph: await this.deps.store.loadSession(this.sessionId, { whole: true }) };
      this.updateStatus();
    } catch (error) {
      this.fail(error);
    }
  }

  updateStatus(): void {
    const terminal = this.deps.view.terminal;
    if (terminal === undefined || this.stored === undefined) return;
    const model = this.deps.model();
    terminal.setStatus(
      statusLine({
        model: model.id,
        contextWindow: model.contextWindow,
        sessionId: this.sessionId,
        lastCall: this.lastCall,
        graph: this.stored.graph,
      }),
    );
  }

  info(text: string): void {
    this.deps.view.line(this.deps.paint('dim', text));
  }

  fail(error: unknown): void {
    this.failures++;
    const label = RunFault.isInstance(error) ? `run failed (${error.kind})` : 'error';
    this.deps.view.line(this.deps.paint('red', `✗ ${label}: ${oneLine(error)}`));
  }

  private attach(): void {
    this.unsubscribe = this.agent.subscribe((event) => {
      if (event.kind === 'usage' && event.usage.outputTokens + event.usage.inputTokens > 0) {
        this.lastCall = event.usage;
        this.updateStatus();
      }
      this.deps.view.handle(event);
      // A tool's or an MCP server's question: asked on a terminal; piped, nobody reads the transcript to answer it.
      const question = questionOf(event);
      if (question === undefined) return;
      const terminal = this.deps.view.terminal;
      if (terminal === undefined) refuseQuestion(this.agent, question, 'a piped chat', (text) => this.deps.warn(text));
      else void askOnTerminal(this.agent, question, terminal, this.deps.paint, (error) => this.fail(error));
    });
  }
}
