import type { PendingApproval, RunSnapshot } from '../../runtime/contract/events.js';
import { CliUsageError } from '../errors.js';
import type { ChatState } from './chat-state.js';

/**
 * The next decision on a waiting call: a rule's, or the person's at a terminal prompt (y, n, a: always
 * for that tool in this session, Escape: later); null to leave them waiting for `/approve` or `/reject`.
 */
export async function nextDecision(chat: ChatState): Promise<(() => Promise<RunSnapshot>) | null> {
  const pending = chat.agent.pendingApprovals();
  const { paint, view, rules } = chat.deps;
  for (const call of pending) {
    const because = rules.allows(chat.sessionId, call);
    if (because !== undefined) {
      view.line(paint('green', `  ✓ ${call.name} allowed (${because})`));
      return () => chat.agent.approve(call.approvalId);
    }
  }
  const call = pending[0];
  if (call === undefined || view.terminal === undefined) return null;
  const answer = await view.terminal.approve(await chat.deps.describeApproval(call), call.name);
  switch (answer) {
    case 'yes':
      view.line(paint('green', `  ✓ approved ${call.name}`));
      return () => chat.agent.approve(call.approvalId);
    case 'always':
      rules.allowAlways(chat.sessionId, call.name);
      view.line(paint('green', `  ✓ approved ${call.name}, and every later ${call.name} call in this session`));
      return () => chat.agent.approve(call.approvalId);
    case 'no':
      view.line(paint('red', `  ✗ rejected ${call.name}`));
      return () => chat.agent.reject(call.approvalId);
    case null:
      reportPending(chat, pending);
      return null;
  }
}

/** The waiting call `/approve` or `/reject` names: by an id prefix, or the only one when none is given. */
export function waitingCall(chat: ChatState, arg: string | null): PendingApproval {
  const pending = chat.agent.pendingApprovals();
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

/** Calls left waiting, each with the commands that decide it. */
export function reportPending(chat: ChatState, pending: PendingApproval[]): void {
  for (const p of pending) {
    chat.deps.view.line(
      chat.deps.paint(
        'yellow',
        `  ? ${p.name} ${JSON.stringify(p.input)} waits for approval: /approve ${p.approvalId} or /reject ${p.approvalId}`,
      ),
    );
  }
}
