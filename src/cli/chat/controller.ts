import { ChatState } from './chat-state.js';
import { runCommand } from './commands.js';
import type { ChatDeps } from './deps.js';
import { runShown } from './runs.js';
import { opened, pickOffered } from './session-switching.js';
import { parseSlash, type SlashCommand } from './slash.js';

export type { ChatDeps } from './deps.js';

/**
 * One chat: the agent, the session it is on, and what each line of input does. A line is a prompt
 * for the model or a slash command (`commands.ts`); runs are shown as they stream (`runs.ts`), and
 * Ctrl-C (`interrupt`) aborts the run in progress. Failures are reported as one line and the chat goes on.
 *
 * A run that stops at calls waiting for approval: calls the rules allow are approved at once; on a
 * terminal the others are put to the person one at a time (y, n, a: always for that tool in this
 * session, Escape: later, with `/approve`); piped, they wait for `/approve` or `/reject`
 * (`approval-decisions.ts`). Moving between sessions and branches is `session-switching.ts`.
 */
export class ChatController {
  private readonly chat: ChatState;

  constructor(deps: ChatDeps, sessionId: string) {
    this.chat = new ChatState(deps, sessionId);
  }

  get sessionId(): string {
    return this.chat.sessionId;
  }

  /** True while `/resume` waits for the user's pick: the next line chooses a session. */
  get choosing(): boolean {
    return this.chat.picking !== null;
  }

  /** How many runs and commands failed, so a piped session can exit non-zero. */
  get failures(): number {
    return this.chat.failures;
  }

  /** Loads the session into the agent and reports where it stands (`exists`: the store holds it already). */
  async open(exists: boolean): Promise<void> {
    const { chat } = this;
    const snapshot = await chat.agent.resume(chat.agent.sessionId);
    if (exists) chat.info(`resumed session ${snapshot.sessionId}: ${snapshot.messages.length} turns in context`);
    await opened(chat, snapshot);
  }

  /** Handles one line of input; false when the chat should end. */
  async handle(line: string): Promise<boolean> {
    const { chat } = this;
    if (chat.picking !== null) return pickOffered(chat, line);
    if (line.trim() === '') return true;
    let command: SlashCommand | null;
    try {
      command = parseSlash(line);
    } catch (error) {
      chat.fail(error);
      return true;
    }
    if (command === null) {
      await runShown(chat, () => chat.agent.submit(line));
      return true;
    }
    if (command.name === 'exit') return false;
    try {
      await runCommand(chat, command);
    } catch (error) {
      chat.fail(error);
    }
    return true;
  }

  /** Ctrl-C: stops the run in progress. Returns false when nothing was running. */
  interrupt(): boolean {
    if (!this.chat.running) return false;
    this.chat.agent.abort();
    return true;
  }

  /** Lets go of the session (persisting what is left and releasing the writer lock). */
  async close(): Promise<void> {
    await this.chat.close();
  }
}
