import { SessionStore } from '../../runtime/store/index.js';
import type { SessionGraph } from '../../runtime/store/index.js';
import type { Command } from '../args.js';
import { CliUsageError } from '../errors.js';
import type { Paint } from '../style.js';
import { excerpt, shortId } from './nodes.js';
import { exportJson, exportMarkdown, renderTranscript } from './transcript.js';
import { renderTree } from './tree.js';
import { usageLines } from './usage.js';

type SessionsCommand = Extract<Command, { name: 'sessions' }>;

/** `indusagi sessions …`: read-only views of the store; none of them takes a lock or writes a byte. */
export async function runSessions(command: SessionsCommand, write: (text: string) => void, paint: Paint): Promise<void> {
  const store = new SessionStore(command.locations.store);
  if (command.action === 'ls') {
    write(await listSessions(store, paint));
    return;
  }
  const graph = await loadExisting(store, command.id);
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
  }
}

/** One line per session, newest first: id, last change, nodes, live leaf and how it began. */
export async function listSessions(store: SessionStore, paint: Paint): Promise<string> {
  const sessions = await store.listSessions();
  if (sessions.length === 0) return `no sessions in ${store.root}\n`;
  const lines: string[] = [];
  for (const summary of sessions) {
    const graph = await store.loadSession(summary.id);
    const first = graph.children(null)[0];
    const when = summary.modifiedAt.toISOString().replace('T', ' ').slice(0, 19);
    const leaf = summary.leaf === null ? '-' : shortId(summary.leaf);
    const title = first === undefined ? '' : excerpt(first.turn, 50);
    lines.push(`${paint('bold', summary.id)}  ${when}  ${String(graph.size).padStart(4)} nodes  leaf ${paint('yellow', leaf)}  ${paint('dim', title)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The session, or a usage error when the store holds no such session (a missing file reads as empty). */
export async function loadExisting(store: SessionStore, id: string): Promise<SessionGraph> {
  const graph = await store.loadSession(id);
  if (graph.size === 0) throw new CliUsageError(`no session "${id}" in ${store.root}; "indusagi sessions ls" lists them`);
  return graph;
}
