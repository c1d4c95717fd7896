import type { RunSnapshot } from '../../runtime/contract/events.js';
import { loadReportProblems } from '../../runtime/store/index.js';
import { CliUsageError } from '../errors.js';
import { listSessions, loadExisting, resolveNode, shortId, excerpt } from '../sessions/index.js';
import { nextDecision, reportPending } from './approval-decisions.js';
import type { ChatState } from './chat-state.js';
import { runShown } from './runs.js';

/** How many sessions `/resume` offers: by number when piped, in a picker on a terminal. */
const PICKER_SIZE = 10;
const TERMINAL_PICKER_SIZE = 100;
/** Turns of a session shown after `/resume` opens it on a terminal. */
const LAST_TURNS = 4;

/** `/resume ID` (or a pick): the agent moves to that stored session, which must exist. */
export async function switchTo(chat: ChatState, sessionId: string): Promise<void> {
  await loadExisting(chat.deps.store, sessionId);
  const snapshot = await chat.agent.resume(sessionId);
  chat.info(`switched to session ${snapshot.sessionId}: ${snapshot.messages.length} turns in context`);
  if (chat.deps.view.terminal !== undefined) await showLastTurns(chat);
  await opened(chat, snapshot);
}

/**
 * After a session is opened: its last call's usage, what its load left out, and calls still waiting,
 * decided as at the end of a run (rules, then the person on a terminal) or listed for `/approve`.
 */
export async function opened(chat: ChatState, snapshot: RunSnapshot): Promise<void> {
  await chat.readLastCall();
  reportDamage(chat, snapshot);
  if (snapshot.pendingApprovals.length === 0) return;
  const next = await nextDecision(chat);
  if (next !== null) await runShown(chat, next);
  else if (chat.deps.view.terminal === undefined) reportPending(chat, chat.agent.pendingApprovals());
}

/** `/resume` alone, piped: the latest sessions, numbered; the next line is the choice (`pickOffered`). */
export async function offerSessions(chat: ChatState): Promise<void> {
  const sessions = (await chat.deps.store.listSessions()).filter((s) => s.id !== chat.sessionId).slice(0, PICKER_SIZE);
  if (sessions.length === 0) {
    chat.info('no other session to resume');
    return;
  }
  const listing = await listSessions(chat.deps.store, chat.deps.paint, sessions);
  const lines = listing.trimEnd().split('\n');
  chat.deps.view.write(`${lines.map((line, i) => `${chat.deps.paint('cyan', String(i + 1).padStart(3))}  ${line}`).join('\n')}\n`);
  chat.info('pick a number (or type an id); an empty line keeps this session');
  chat.picking = sessions.map((s) => s.id);
}

/** `/resume` alone, on a terminal: the other sessions in a picker, newest first. */
export async function pickSession(chat: ChatState): Promise<void> {
  const sessions = (await chat.deps.store.listSessions()).filter((s) => s.id !== chat.sessionId).slice(0, TERMINAL_PICKER_SIZE);
  if (sessions.length === 0) {
    chat.info('no other session to resume');
    return;
  }
  const lines = (await listSessions(chat.deps.store, chat.deps.paint, sessions)).trimEnd().split('\n');
  const chosen = await chat.deps.view.terminal!.pick(
    'resume which session?',
    sessions.map((s, i) => ({ label: lines[i], value: s.id })),
  );
  if (chosen === null) chat.info(`staying on session ${chat.sessionId}`);
  else await switchTo(chat, chosen);
}

/** The line after `offerSessions`: a number from its list, an id, or nothing to stay. */
export async function pickOffered(chat: ChatState, line: string): Promise<boolean> {
  const offered = chat.picking ?? [];
  chat.picking = null;
  const choice = line.trim();
  if (choice === '') {
    chat.info(`staying on session ${chat.sessionId}`);
    return true;
  }
  const number = /^\d+$/.test(choice) ? Number(choice) : NaN;
  try {
    if (!Number.isNaN(number) && (number < 1 || number > offered.length))
      throw new CliUsageError(`pick a number from 1 to ${offered.length}`);
    await switchTo(chat, Number.isNaN(number) ? choice : offered[number - 1]);
  } catch (error) {
    chat.fail(error);
  }
  return true;
}

/** Moves the live leaf to an earlier node; the next prompt starts a new branch there. */
export async function fork(chat: ChatState, nodeArg: string): Promise<void> {
  const node = resolveNode(await chat.deps.store.loadSession(chat.sessionId), nodeArg);
  const snapshot = await chat.agent.branchFrom(node.id);
  await chat.readLastCall();
  chat.info(`forked: the next prompt continues after ${shortId(node.id)} (${node.turn.role}: ${excerpt(node.turn, 50)})`);
  if (snapshot.pendingApprovals.length > 0) await opened(chat, snapshot);
}

/** The last turns of the live branch, so a resumed session shows where it stands. */
async function showLastTurns(chat: ChatState): Promise<void> {
  const graph = await chat.deps.store.loadSession(chat.sessionId);
  if (graph.leaf === null) return;
  const { paint } = chat.deps;
  const turns = graph
    .nodesTo(graph.leaf)
    .filter((node) => node.turn.blocks.some((b) => b.kind === 'text'))
    .slice(-LAST_TURNS);
  const lines = turns.map(
    (node) =>
      `  ${paint(node.turn.role === 'user' ? 'cyan' : 'dim', node.turn.role === 'user' ? 'you ›' : '   ‹')} ${excerpt(node.turn, 100)}`,
  );
  chat.deps.view.write(`${[paint('dim', `  the last ${turns.length} turns:`), ...lines].join('\n')}\n`);
}

/** A session file damaged by a crash or an edit loads what it can: say what it could not, and what a stopped run left. */
function reportDamage(chat: ChatState, snapshot: RunSnapshot): void {
  const { view, paint } = chat.deps;
  if (snapshot.status === 'interrupted') {
    const cut = snapshot.interrupted ?? [];
    const calls =
      cut.length === 0 ? '' : `; its tool calls ${cut.map((c) => `${c.name} (${c.rerun ? 'will run again' : 'may have run'})`).join(', ')}`;
    view.line(paint('yellow', `  ! the last run stopped before its end${calls}: /continue picks it up`));
  }
  if (snapshot.loadReport === undefined) return;
  for (const problem of loadReportProblems(snapshot.loadReport))
    view.line(paint('yellow', `  ! session ${snapshot.sessionId}: ${problem}`));
}
