import { rm } from 'node:fs/promises';
import type { SessionGraph, SessionSummary } from '../../runtime/store/index.js';
import type { Command } from '../args.js';
import { CliUsageError } from '../errors.js';
import { openSessionStore, type CliSessionStore } from '../session-store.js';
import type { Paint } from '../style.js';
import { clipLine, shortId } from './nodes.js';
import { exportJson, exportMarkdown, renderTranscript } from './transcript.js';
import { renderTree } from './tree.js';
import { usageLines } from './usage.js';

type SessionsCommand = Extract<Command, { name: 'sessions' }>;

/**
 * `indusagi sessions …`: read-only views of the store, which take no lock and write no byte, and `rm`,
 * which takes the session's writer lock first, so a session a chat has open is never deleted under it.
 */
export async function runSessions(command: SessionsCommand, write: (text: string) => void, paint: Paint): Promise<void> {
  const store = openSessionStore(command.locations.store);
  try {
    await runOn(store, command, write, paint);
  } finally {
    await store.close();
  }
}

async function runOn(store: CliSessionStore, command: SessionsCommand, write: (text: string) => void, paint: Paint): Promise<void> {
  if (command.action === 'ls') {
    write(await listSessions(store, paint));
    return;
  }
  const graph = await loadExisting(store, command.id, { whole: true });
  switch (command.action) {
    case 'show':
      write(`${[...renderTranscript(graph, paint), '', ...usageLines(graph)].join('\n')}\n`);
      return;
    case 'tree':
      write(`${renderTree(graph, paint).join('\n')}\n`);
      return;
    case 'export':
      write(command.format === 'json' ? exportJson(graph) : exportMarkdown(graph));
      return;
    case 'rm':
      await removeSession(store, command.id);
      write(`removed session ${command.id} (${graph.size} nodes)\n`);
      return;
  }
}

/** One line per session (all, or `only` these), newest first: id, last change, turns, live leaf and how it began. Reads no whole file. */
export async function listSessions(store: CliSessionStore, paint: Paint, only?: SessionSummary[]): Promise<string> {
  const sessions = only ?? (await store.listSessions());
  if (sessions.length === 0)
    return `no sessions in ${store.where}
`;
  const lines: string[] = [];
  for (const summary of sessions) {
    const when = summary.modifiedAt.toISOString().replace('T', ' ').slice(0, 19);
    const leaf = summary.leaf === null ? '-' : shortId(summary.leaf);
    const title = summary.title === null ? '' : clipLine(summary.title, 50);
    const turns = summary.turns === null ? '?' : String(summary.turns);
    lines.push(`${paint('bold', summary.id)}  ${when}  ${turns.padStart(4)} nodes  leaf ${paint('yellow', leaf)}  ${paint('dim', title)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Deletes a session's file while holding its writer lock (`SessionLockedError` while a live process has it open). */
async function removeSession(store: CliSessionStore, id: string): Promise<void> {
  if (store.pathOf === undefined) throw new CliUsageError(`sessions rm deletes session files; sessions in ${store.where} are kept`);
  const lease = await store.acquire(id);
  try {
    await rm(store.pathOf(id));
  } finally {
    await store.release(lease);
  }
}

/**
 * The session, or a usage error when the store holds no such session (a missing file reads as empty).
 * `whole` loads every branch (for tree views and exports); otherwise only the live path is read.
 */
export async function loadExisting(store: CliSessionStore, id: string, options: { whole?: boolean } = {}): Promise<SessionGraph> {
  const graph = await store.loadSession(id, options);
  // A graph holding only its live path was resumed from a checkpoint: the session has turns.
  if (graph.whole && graph.size === 0) throw new CliUsageError(`no session "${id}" in ${store.where}; "indusagi sessions ls" lists them`);
  return graph;
}
