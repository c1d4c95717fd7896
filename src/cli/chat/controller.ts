import type { Agent } from '../../runtime/agent/index.js';
import type { PendingApproval, RunSnapshot } from '../../runtime/contract/events.js';
import type { ModelUsage } from '../../runtime/contract/model.js';
import { loadReportProblems } from '../../runtime/store/index.js';
import type { CliSessionStore } from '../session-store.js';
import { RunFault } from '../../runtime/loop/index.js';
import { CliUsageError } from '../errors.js';
import { oneLine } from '../output.js';
import type { Paint } from '../style.js';
import { listSessions, loadExisting, renderTree, resolveNode, shortId, excerpt } from '../sessions/index.js';
import type { RunRenderer } from './render.js';
import { parseSlash, SLASH_HELP, type SlashCommand } from './slash.js';
import { lastCallUsage, statusLine } from './status.js';

/** How many sessions `/resume` offers. */
const PICKER_SIZE = 10;

export type ChatDeps = {
  /** Read without the writer lock, for listings, the tree and resolving node prefixes; the agent writes. */
  store: CliSessionStore;
  /** The chat's agent, on `sessionId`. */
  makeAgent(sessionId: string): Agent;
  renderer: RunRenderer;
  write(text: string): void;
  paint: Paint;
  /** The model's id and window, for the status line; no status line without it (piped chats). */
  status?: { model: string; contextWindow: number };
};

/**
 * One chat: the agent, the session it is on, and what each line of input does. A line is a prompt
 * for the model or a slash command; runs are rendered as they stream, and Ctrl-C (`interrupt`)
 * aborts the run in progress. Failures are reported as one line and the chat goes on.
 */
export class ChatController {
  private readonly agent: Agent;
  private readonly unsubscribe: () => void;
  private running = false;
  /** After `/resume` without an id: the sessions offered, numbered from 1; the next line picks one. */
  private picking: string[] | null = null;
  /** The last model call's usage (this process's, or the stored branch's on open), for the status line. */
  private lastCall: ModelUsage | undefined;
  /** Set by a failed run or command, so a piped session can exit non-zero. */
  failures = 0;

  constructor(
    private readonly deps: ChatDeps,
    sessionId: string,
  ) {
    this.agent = deps.makeAgent(sessionId);
    this.unsubscribe = this.agent.subscribe((event) => {
      if (event.kind === 'usage') this.lastCall = event.usage;
      deps.renderer.handle(event);
    });
  }

  get sessionId(): string {
    return this.agent.sessionId;
  }

  /** True while `/resume` waits for the user's pick: the next line chooses a session. */
  get choosing(): boolean {
    return this.picking !== null;
  }

  /** Loads the session into the agent and reports where it stands (`exists`: the store holds it already). */
  async open(exists: boolean): Promise<void> {
    const snapshot = await this.agent.resume(this.agent.sessionId);
    if (exists) this.info(`resumed session ${snapshot.sessionId}: ${snapshot.messages.length} turns in context`);
    await this.readLastCall();
    this.reportDamage(snapshot);
    this.reportPending(snapshot.pendingApprovals);
  }

  /** Handles one line of input; false when the chat should end. */
  async handle(line: string): Promise<boolean> {
    if (this.picking !== null) return this.pick(line);
    if (line.trim() === '') return true;
    let command: SlashCommand | null;
    try {
      command = parseSlash(line);
    } catch (error) {
      this.fail(error);
      return true;
    }
    if (command === null) {
      await this.run(() => this.agent.submit(line));
      return true;
    }
    if (command.name === 'exit') return false;
    try {
      await this.command(command);
    } catch (error) {
      this.fail(error);
    }
    return true;
  }

  /** Ctrl-C: stops the run in progress. Returns false when nothing was running. */
  interrupt(): boolean {
    if (!this.running) return false;
    this.agent.abort();
    return true;
  }

  /** Lets go of the session (persisting what is left and releasing the writer lock). */
  async close(): Promise<void> {
    this.unsubscribe();
    await this.agent.close();
  }

  private async command(command: Exclude<SlashCommand, { name: 'exit' }>): Promise<void> {
    switch (command.name) {
      case 'help':
        this.deps.write(`${SLASH_HELP.join('\n')}\n`);
        return;
      case 'sessions':
        this.deps.write(await listSessions(this.deps.store, this.deps.paint));
        return;
      case 'tree': {
        const graph = await this.deps.store.loadSession(this.sessionId, { whole: true });
        this.deps.write(graph.size === 0 ? 'this session is empty so far\n' : `${renderTree(graph, this.deps.paint).join('\n')}\n`);
        return;
      }
      case 'resume':
        if (command.arg === null) await this.offerSessions();
        else await this.switchTo(command.arg);
        return;
      case 'fork':
        await this.fork(command.arg);
        return;
      case 'continue':
        await this.run(() => this.agent.continue());
        return;
      case 'compact':
        await this.run(async () => {
          const outcome = await this.agent.condense();
          if (outcome.compacted === null)
            this.info('nothing condensed: the history is shorter than what is always kept, or a summary would not make it smaller');
        });
        return;
      case 'approve':
      case 'reject': {
        const pending = this.waiting(command.arg);
        await this.run(() => (command.name === 'approve' ? this.agent.approve(pending.approvalId) : this.agent.reject(pending.approvalId)));
        return;
      }
    }
  }

  private async switchTo(sessionId: string): Promise<void> {
    await loadExisting(this.deps.store, sessionId);
    const snapshot = await this.agent.resume(sessionId);
    this.info(`switched to session ${snapshot.sessionId}: ${snapshot.messages.length} turns in context`);
    await this.readLastCall();
    this.reportDamage(snapshot);
    this.reportPending(snapshot.pendingApprovals);
  }

  /** `/resume` alone: the latest sessions, numbered; the next line is the choice. */
  private async offerSessions(): Promise<void> {
    const sessions = (await this.deps.store.listSessions()).filter((s) => s.id !== this.sessionId).slice(0, PICKER_SIZE);
    if (sessions.length === 0) {
      this.info('no other session to resume');
      return;
    }
    const listing = await listSessions(this.deps.store, this.deps.paint, sessions);
    const lines = listing.trimEnd().split('\n');
    this.deps.write(`${lines.map((line, i) => `${this.deps.paint('cyan', String(i + 1).padStart(3))}  ${line}`).join('\n')}\n`);
    this.info('pick a number (or type an id); an empty line keeps this session');
    this.picking = sessions.map((s) => s.id);
  }

  private async pick(line: string): Promise<boolean> {
    const offered = this.picking ?? [];
    this.picking = null;
    const choice = line.trim();
    if (choice === '') {
      this.info(`staying on session ${this.sessionId}`);
      return true;
    }
    const number = /^\d+$/.test(choice) ? Number(choice) : NaN;
    try {
      if (!Number.isNaN(number) && (number < 1 || number > offered.length))
        throw new CliUsageError(`pick a number from 1 to ${offered.length}`);
      await this.switchTo(Number.isNaN(number) ? choice : offered[number - 1]);
    } catch (error) {
      this.fail(error);
    }
    return true;
  }

  /** Moves the live leaf to an earlier node; the next prompt starts a new branch there. */
  private async fork(nodeArg: string): Promise<void> {
    const node = resolveNode(await this.deps.store.loadSession(this.sessionId), nodeArg);
    const snapshot = await this.agent.branchFrom(node.id);
    await this.readLastCall();
    this.info(`forked: the next prompt continues after ${shortId(node.id)} (${node.turn.role}: ${excerpt(node.turn, 50)})`);
    this.reportPending(snapshot.pendingApprovals);
  }

  private waiting(arg: string | null): PendingApproval {
    const pending = this.agent.pendingApprovals();
    if (pending.length === 0) throw new CliUsageError('no tool call is waiting for approval');
    if (arg === null) {
      if (pending.length === 1) return pending[0];
      throw new CliUsageError(`${pending.length} calls are waiting; name one: ${pending.map((p) => p.approvalId).join(', ')}`);
    }
    const matches = pending.filter((p) => p.approvalId.startsWith(arg));
    if (matches.length === 1) return matches[0];
    throw new CliUsageError(
      matches.length === 0 ? `no waiting call has the id ${arg}` : `${arg} matches ${matches.length} waiting calls; give more of the id`,
    );
  }

  private async run(work: () => Promise<unknown>): Promise<void> {
    this.running = true;
    this.deps.renderer.begin();
    try {
      await work();
    } catch (error) {
      if (RunFault.isInstance(error) && error.kind === 'aborted') {
        this.deps.renderer.line(this.deps.paint('yellow', '⏹ interrupted; the unfinished reply was not saved (Ctrl-C again to exit)'));
      } else {
        this.fail(error);
      }
    } finally {
      this.deps.renderer.end();
      this.running = false;
    }
    await this.showStatus();
  }

  private async readLastCall(): Promise<void> {
    if (this.deps.status !== undefined) this.lastCall = lastCallUsage(await this.deps.store.loadSession(this.sessionId));
  }

  /** The status line after a run: read back from the store, so it bills what `sessions show` bills. */
  private async showStatus(): Promise<void> {
    if (this.deps.status === undefined) return;
    try {
      const graph = await this.deps.store.loadSession(this.sessionId, { whole: true });
      this.info(statusLine({ ...this.deps.status, sessionId: this.sessionId, lastCall: this.lastCall, graph }));
    } catch (error) {
      this.fail(error);
    }
  }

  /** A session file damaged by a crash or an edit loads what it can: say what it could not, and what a stopped run left. */
  private reportDamage(snapshot: RunSnapshot): void {
    if (snapshot.status === 'interrupted') {
      const cut = snapshot.interrupted ?? [];
      const calls =
        cut.length === 0
          ? ''
          : `; its tool calls ${cut.map((c) => `${c.name} (${c.rerun ? 'will run again' : 'may have run'})`).join(', ')}`;
      this.deps.renderer.line(this.deps.paint('yellow', `  ! the last run stopped before its end${calls}: /continue picks it up`));
    }
    if (snapshot.loadReport === undefined) return;
    for (const problem of loadReportProblems(snapshot.loadReport))
      this.deps.renderer.line(this.deps.paint('yellow', `  ! session ${snapshot.sessionId}: ${problem}`));
  }

  private reportPending(pending: PendingApproval[]): void {
    for (const p of pending) {
      this.deps.renderer.line(
        this.deps.paint(
          'yellow',
          `  ? ${p.name} ${JSON.stringify(p.input)} waits for approval: /approve ${p.approvalId} or /reject ${p.approvalId}`,
        ),
      );
    }
  }

  private info(text: string): void {
    this.deps.renderer.line(this.deps.paint('dim', text));
  }

  private fail(error: unknown): void {
    this.failures++;
    const label = RunFault.isInstance(error) ? `run failed (${error.kind})` : 'error';
    this.deps.renderer.line(this.deps.paint('red', `✗ ${label}: ${oneLine(error)}`));
  }
}
