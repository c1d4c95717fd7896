import type { Agent } from '../../runtime/agent/index.js';
import type { PendingApproval, RunSnapshot } from '../../runtime/contract/events.js';
import type { ModelUsage } from '../../runtime/contract/model.js';
import { loadReportProblems, type SessionGraph } from '../../runtime/store/index.js';
import type { CliSessionStore } from '../session-store.js';
import { RunFault } from '../../runtime/loop/index.js';
import type { ApprovalRules } from '../approvals.js';
import { CliUsageError } from '../errors.js';
import { parseModelFlag, type ModelFlag } from '../model-flag.js';
import { oneLine } from '../output.js';
import type { Paint } from '../style.js';
import type { Choice } from '../tui/index.js';
import { listSessions, loadExisting, renderTree, resolveNode, shortId, excerpt, treeRows } from '../sessions/index.js';
import { parseSlash, SLASH_HELP, type SlashCommand } from './slash.js';
import { lastCallUsage, statusLine } from './status.js';
import type { ChatView } from './view.js';

/** How many sessions `/resume` offers: by number when piped, in a picker on a terminal. */
const PICKER_SIZE = 10;
const TERMINAL_PICKER_SIZE = 100;
/** Turns of a session shown after `/resume` opens it on a terminal. */
const LAST_TURNS = 4;

export type ChatDeps = {
  /** Read without the writer lock, for listings, the tree and resolving node prefixes; the agent writes. */
  store: CliSessionStore;
  /** An agent on `sessionId`, with the model in use now. */
  makeAgent(sessionId: string): Agent;
  view: ChatView;
  paint: Paint;
  /** Which waiting calls are approved without asking; `a` at an approval prompt adds to it. */
  rules: ApprovalRules;
  /** What a waiting call would do, for the approval prompt (a terminal's). */
  describeApproval(call: PendingApproval): Promise<string[]>;
  /** The model in use: its id and window (for the status line) and how the banner describes it. */
  model(): { id: string; contextWindow: number; describe: string; offline: boolean };
  /** `/model`: what it offers, the key a model would need and lacks, and switching (null: the offline demo model). */
  models: {
    choices(): Array<Choice<ModelFlag | 'demo'>>;
    missingKey(flag: ModelFlag): string | undefined;
    switchTo(flag: ModelFlag | null): Promise<void>;
  };
  /** What `/mcp` prints: the MCP servers, their state and tool counts; absent without servers. */
  mcpStatus?: () => string;
};

/**
 * One chat: the agent, the session it is on, and what each line of input does. A line is a prompt
 * for the model or a slash command; runs are shown as they stream, and Ctrl-C (`interrupt`) aborts the
 * run in progress. Failures are reported as one line and the chat goes on.
 *
 * A run that stops at calls waiting for approval: calls the rules allow are approved at once; on a
 * terminal the others are put to the person one at a time (y, n, a: always for that tool in this
 * session, Escape: later, with `/approve`); piped, they wait for `/approve` or `/reject`.
 */
export class ChatController {
  private agent: Agent;
  private unsubscribe: () => void = () => undefined;
  private running = false;
  /** After `/resume` without an id (piped): the sessions offered, numbered from 1; the next line picks one. */
  private picking: string[] | null = null;
  /** The last model call's usage (this process's, or the stored branch's on open), for the status line. */
  private lastCall: ModelUsage | undefined;
  /** The session's billed tokens and cost, as the store read them last (the status line's tail). */
  private stored: { graph: SessionGraph } | undefined;
  /** Set by a failed run or command, so a piped session can exit non-zero. */
  failures = 0;

  constructor(
    private readonly deps: ChatDeps,
    sessionId: string,
  ) {
    this.agent = deps.makeAgent(sessionId);
    this.attach();
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
    await this.opened(snapshot);
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

  private attach(): void {
    this.unsubscribe = this.agent.subscribe((event) => {
      if (event.kind === 'usage' && event.usage.outputTokens + event.usage.inputTokens > 0) {
        this.lastCall = event.usage;
        this.updateStatus();
      }
      this.deps.view.handle(event);
    });
  }

  private async command(command: Exclude<SlashCommand, { name: 'exit' }>): Promise<void> {
    const terminal = this.deps.view.terminal;
    switch (command.name) {
      case 'help':
        this.deps.view.write(`${SLASH_HELP.join('\n')}\n`);
        return;
      case 'sessions':
        this.deps.view.write(await listSessions(this.deps.store, this.deps.paint));
        return;
      case 'mcp':
        this.deps.view.write(
          this.deps.mcpStatus?.() ?? 'no MCP servers: start the chat with --mcp FILE, or put a .mcp.json in this folder\n',
        );
        return;
      case 'tree': {
        const graph = await this.deps.store.loadSession(this.sessionId, { whole: true });
        if (graph.size === 0) {
          this.deps.view.write('this session is empty so far\n');
          return;
        }
        if (terminal === undefined) {
          this.deps.view.write(`${renderTree(graph, this.deps.paint).join('\n')}\n`);
          return;
        }
        const rows = treeRows(graph, this.deps.paint);
        const live = Math.max(
          0,
          rows.findIndex((row) => row.node.id === graph.leaf),
        );
        const chosen = await terminal.pick(
          `session ${this.sessionId}: Enter continues from the node chosen`,
          rows.map((row) => ({ label: row.line, value: row.node.id })),
          live,
        );
        if (chosen === null) return;
        if (chosen === graph.leaf) this.info('already there: the next prompt continues from the live leaf');
        else await this.fork(chosen);
        return;
      }
      case 'resume':
        if (command.arg !== null) await this.switchTo(command.arg);
        else if (terminal !== undefined) await this.pickSession();
        else await this.offerSessions();
        return;
      case 'fork':
        await this.fork(command.arg);
        return;
      case 'model':
        await this.model(command.arg);
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
    if (this.deps.view.terminal !== undefined) await this.showLastTurns();
    await this.opened(snapshot);
  }

  /**
   * After a session is opened: its last call's usage, what its load left out, and calls still waiting,
   * decided as at the end of a run (rules, then the person on a terminal) or listed for `/approve`.
   */
  private async opened(snapshot: RunSnapshot): Promise<void> {
    await this.readLastCall();
    this.reportDamage(snapshot);
    if (snapshot.pendingApprovals.length === 0) return;
    const next = await this.decide();
    if (next !== null) await this.run(next);
    else if (this.deps.view.terminal === undefined) this.reportPending(this.agent.pendingApprovals());
  }

  /** `/resume` alone, piped: the latest sessions, numbered; the next line is the choice. */
  private async offerSessions(): Promise<void> {
    const sessions = (await this.deps.store.listSessions()).filter((s) => s.id !== this.sessionId).slice(0, PICKER_SIZE);
    if (sessions.length === 0) {
      this.info('no other session to resume');
      return;
    }
    const listing = await listSessions(this.deps.store, this.deps.paint, sessions);
    const lines = listing.trimEnd().split('\n');
    this.deps.view.write(`${lines.map((line, i) => `${this.deps.paint('cyan', String(i + 1).padStart(3))}  ${line}`).join('\n')}\n`);
    this.info('pick a number (or type an id); an empty line keeps this session');
    this.picking = sessions.map((s) => s.id);
  }

  /** `/resume` alone, on a terminal: the other sessions in a picker, newest first. */
  private async pickSession(): Promise<void> {
    const sessions = (await this.deps.store.listSessions()).filter((s) => s.id !== this.sessionId).slice(0, TERMINAL_PICKER_SIZE);
    if (sessions.length === 0) {
      this.info('no other session to resume');
      return;
    }
    const lines = (await listSessions(this.deps.store, this.deps.paint, sessions)).trimEnd().split('\n');
    const chosen = await this.deps.view.terminal!.pick(
      'resume which session?',
      sessions.map((s, i) => ({ label: lines[i], value: s.id })),
    );
    if (chosen === null) this.info(`staying on session ${this.sessionId}`);
    else await this.switchTo(chosen);
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

  /** The last turns of the live branch, so a resumed session shows where it stands. */
  private async showLastTurns(): Promise<void> {
    const graph = await this.deps.store.loadSession(this.sessionId);
    if (graph.leaf === null) return;
    const { paint } = this.deps;
    const turns = graph
      .nodesTo(graph.leaf)
      .filter((node) => node.turn.blocks.some((b) => b.kind === 'text'))
      .slice(-LAST_TURNS);
    const lines = turns.map(
      (node) =>
        `  ${paint(node.turn.role === 'user' ? 'cyan' : 'dim', node.turn.role === 'user' ? 'you ›' : '   ‹')} ${excerpt(node.turn, 100)}`,
    );
    this.deps.view.write(`${[paint('dim', `  the last ${turns.length} turns:`), ...lines].join('\n')}\n`);
  }

  /** Moves the live leaf to an earlier node; the next prompt starts a new branch there. */
  private async fork(nodeArg: string): Promise<void> {
    const node = resolveNode(await this.deps.store.loadSession(this.sessionId), nodeArg);
    const snapshot = await this.agent.branchFrom(node.id);
    await this.readLastCall();
    this.info(`forked: the next prompt continues after ${shortId(node.id)} (${node.turn.role}: ${excerpt(node.turn, 50)})`);
    if (snapshot.pendingApprovals.length > 0) await this.opened(snapshot);
  }

  /** `/model`: the picker on a terminal, the list piped; `/model P:MODEL` switches to it. */
  private async model(arg: string | null): Promise<void> {
    const choices = this.deps.models.choices();
    const terminal = this.deps.view.terminal;
    let flag: ModelFlag | null;
    if (arg !== null) {
      flag = arg === 'demo' || arg === 'offline' ? null : parseModelFlag(arg);
    } else if (terminal !== undefined) {
      const model = this.deps.model();
      const at = choices.findIndex((c) => (c.value === 'demo' ? model.offline : c.value.model === model.id));
      const chosen = await terminal.pick('switch to which model?', choices, Math.max(0, at));
      if (chosen === null) return;
      flag = chosen === 'demo' ? null : chosen;
    } else {
      const { paint } = this.deps;
      this.deps.view.write(
        `${choices.map((c) => `  ${c.label}${c.disabled !== undefined ? paint('dim', `  (${c.disabled})`) : ''}`).join('\n')}\n`,
      );
      this.info('switch with /model PROVIDER:MODEL, or /model demo');
      return;
    }
    const key = flag === null ? undefined : this.deps.models.missingKey(flag);
    if (key !== undefined) throw new CliUsageError(`${flag!.given} needs ${key}`);
    this.unsubscribe();
    await this.agent.close();
    try {
      await this.deps.models.switchTo(flag);
    } finally {
      this.agent = this.deps.makeAgent(this.agent.sessionId);
      this.attach();
      await this.agent.resume(this.agent.sessionId);
    }
    this.updateStatus();
    this.info(`now talking to ${this.deps.model().describe}`);
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

  /**
   * Runs `work` (a prompt, a decision, a condensation) and shows it; while the run stops at calls
   * waiting for approval, decides them (rules, then the person on a terminal) and goes on.
   */
  private async run(work: () => Promise<unknown>): Promise<void> {
    let next: (() => Promise<unknown>) | null = work;
    while (next !== null) {
      const snapshot = await this.runOnce(next);
      next = snapshot?.status === 'waiting' ? await this.decide() : null;
    }
    await this.showStatus();
  }

  private async runOnce(work: () => Promise<unknown>): Promise<RunSnapshot | undefined> {
    this.running = true;
    this.deps.view.begin();
    try {
      const result = await work();
      return isSnapshot(result) ? result : undefined;
    } catch (error) {
      if (RunFault.isInstance(error) && error.kind === 'aborted') {
        this.deps.view.line(this.deps.paint('yellow', '⏹ interrupted; the unfinished reply was not saved (Ctrl-C again to exit)'));
      } else {
        this.fail(error);
      }
      return undefined;
    } finally {
      await this.deps.view.end();
      this.running = false;
    }
  }

  /** The next decision on a waiting call: a rule's, or the person's at a terminal prompt; null to leave them waiting. */
  private async decide(): Promise<(() => Promise<RunSnapshot>) | null> {
    const pending = this.agent.pendingApprovals();
    const { paint, view, rules } = this.deps;
    for (const call of pending) {
      const because = rules.allows(this.sessionId, call);
      if (because !== undefined) {
        view.line(paint('green', `  ✓ ${call.name} allowed (${because})`));
        return () => this.agent.approve(call.approvalId);
      }
    }
    const call = pending[0];
    if (call === undefined || view.terminal === undefined) return null;
    const answer = await view.terminal.approve(await this.deps.describeApproval(call), call.name);
    switch (answer) {
      case 'yes':
        view.line(paint('green', `  ✓ approved ${call.name}`));
        return () => this.agent.approve(call.approvalId);
      case 'always':
        rules.allowAlways(this.sessionId, call.name);
        view.line(paint('green', `  ✓ approved ${call.name}, and every later ${call.name} call in this session`));
        return () => this.agent.approve(call.approvalId);
      case 'no':
        view.line(paint('red', `  ✗ rejected ${call.name}`));
        return () => this.agent.reject(call.approvalId);
      case null:
        this.reportPending(pending);
        return null;
    }
  }

  private async readLastCall(): Promise<void> {
    if (this.deps.view.terminal === undefined) return;
    const graph = await this.deps.store.loadSession(this.sessionId, { whole: true });
    this.lastCall = lastCallUsage(graph);
    this.stored = { graph };
    this.updateStatus();
  }

  /** The status line after a run: read back from the store, so it bills what `sessions show` bills. */
  private async showStatus(): Promise<void> {
    if (this.deps.view.terminal === undefined) return;
    try {
      this.stored = { graph: await this.deps.store.loadSession(this.sessionId, { whole: true }) };
      this.updateStatus();
    } catch (error) {
      this.fail(error);
    }
  }

  private updateStatus(): void {
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

  /** A session file damaged by a crash or an edit loads what it can: say what it could not, and what a stopped run left. */
  private reportDamage(snapshot: RunSnapshot): void {
    if (snapshot.status === 'interrupted') {
      const cut = snapshot.interrupted ?? [];
      const calls =
        cut.length === 0
          ? ''
          : `; its tool calls ${cut.map((c) => `${c.name} (${c.rerun ? 'will run again' : 'may have run'})`).join(', ')}`;
      this.deps.view.line(this.deps.paint('yellow', `  ! the last run stopped before its end${calls}: /continue picks it up`));
    }
    if (snapshot.loadReport === undefined) return;
    for (const problem of loadReportProblems(snapshot.loadReport))
      this.deps.view.line(this.deps.paint('yellow', `  ! session ${snapshot.sessionId}: ${problem}`));
  }

  private reportPending(pending: PendingApproval[]): void {
    for (const p of pending) {
      this.deps.view.line(
        this.deps.paint(
          'yellow',
          `  ? ${p.name} ${JSON.stringify(p.input)} waits for approval: /approve ${p.approvalId} or /reject ${p.approvalId}`,
        ),
      );
    }
  }

  private info(text: string): void {
    this.deps.view.line(this.deps.paint('dim', text));
  }

  private fail(error: unknown): void {
    this.failures++;
    const label = RunFault.isInstance(error) ? `run failed (${error.kind})` : 'error';
    this.deps.view.line(this.deps.paint('red', `✗ ${label}: ${oneLine(error)}`));
  }
}

function isSnapshot(value: unknown): value is RunSnapshot {
  return typeof value === 'object' && value !== null && 'status' in value && 'pendingApprovals' in value;
}
