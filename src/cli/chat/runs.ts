import type { RunSnapshot } from '../../runtime/contract/events.js';
import { RunFault } from '../../runtime/loop/index.js';
import { nextDecision } from './approval-decisions.js';
import type { ChatState } from './chat-state.js';

/**
 * Runs `work` (a prompt, a decision, a condensation) and shows it; while the run stops at calls
 * waiting for approval, decides them (rules, then the person on a terminal) and goes on. A failure is
 * reported as one line and the chat goes on.
 */
export async function runShown(chat: ChatState, work: () => Promise<unknown>): Promise<void> {
  let next: (() => Promise<unknown>) | null = work;
  while (next !== null) {
    const snapshot = await runOnce(chat, next);
    next = snapshot?.status === 'waiting' ? await nextDecision(chat) : null;
  }
  await chat.showStatus();
}

async function runOnce(chat: ChatState, work: () => Promise<unknown>): Promise<RunSnapshot | undefined> {
  const { view, paint } = chat.deps;
  chat.running = true;
  view.begin();
  try {
    const result = await work();
    return isSnapshot(result) ? result : undefined;
  } catch (error) {
    if (RunFault.isInstance(error) && error.kind === 'aborted') {
      view.line(paint('yellow', '⏹ interrupted; the unfinished reply was not saved (Ctrl-C again to exit)'));
    } else {
      chat.fail(error);
    }
    return undefined;
  } finally {
    await view.end();
    chat.running = false;
  }
}

function isSnapshot(value: unknown): value is RunSnapshot {
  return typeof value === 'object' && value !== null && 'status' in value && 'pendingApprovals' in value;
}
