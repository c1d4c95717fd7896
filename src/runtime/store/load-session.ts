import type { LoadReport } from '../contract/session.js';
import { SessionGraph } from './graph.js';
import type { LivePathSession, SessionStoreLike, StoredSession } from './types.js';

/** How a load reads: by default the live path when the store offers it; `whole` reads every record. */
export type LoadOptions = { whole?: boolean };

/** A session graph with what loading it found. */
export type LoadedSession<Report extends LoadReport = LoadReport> = { graph: SessionGraph; report: Report };

/** The reading half of a store: what a load needs. */
export type SessionReader = Pick<SessionStoreLike, 'read' | 'readLivePath'>;

/**
 * Reads a session from any store without its lease and builds its graph: from the live path when the
 * store offers one (`readLivePath`), else from every record. A missing session is an empty graph. The
 * one implementation behind every store's `loadSession`.
 */
export async function loadSession(store: SessionReader, id: string, options: LoadOptions = {}): Promise<SessionGraph> {
  return (await loadSessionWithReport(store, id, options)).graph;
}

/** `loadSession`, with what the load found (see `graphOf`). */
export async function loadSessionWithReport(store: SessionReader, id: string, options: LoadOptions = {}): Promise<LoadedSession> {
  const live = options.whole !== true && store.readLivePath !== undefined;
  return graphOf(store, id, live ? await store.readLivePath!(id) : await store.read(id));
}

/**
 * The graph of what `store` read of session `id`, and the load report: the store's, with what rebuilding
 * the graph found added (nodes whose ancestry is broken, a leaf whose context cannot be rebuilt, and
 * summaries whose kept tail is not on their path, which count as damaged lines). A live-path graph
 * reads the rest through `store.read` when asked for more.
 */
export function graphOf<Report extends LoadReport>(
  store: SessionReader,
  id: string,
  stored: StoredSession & { report: Report },
): LoadedSession<Report> {
  if ('leaf' in stored) {
    const live = stored as LivePathSession & { report: Report };
    const graph = SessionGraph.fromLivePath(id, live.records, {
      leaf: live.leaf,
      usageTotal: live.usageTotal,
      tripped: live.tripped,
      rest: async () => (await store.read(id)).records,
      restSync: live.readAllSync?.bind(live),
    });
    return { graph, report: live.report };
  }
  const { graph, orphans, leafFallback, rejected } = SessionGraph.restore(id, stored.records);
  const lineOf = (index: number) => stored.lines?.[index] ?? index + 1;
  const { report } = stored;
  const skipped = [...report.skipped, ...rejected.map((summary) => ({ line: lineOf(summary.index), reason: summary.reason }))];
  return {
    graph,
    report: {
      ...report,
      records: report.records - rejected.length,
      skipped: rejected.length === 0 ? report.skipped : skipped.sort((a, b) => a.line - b.line),
      orphans: [...report.orphans, ...orphans.map((orphan) => ({ id: orphan.id, parent: orphan.parent, line: lineOf(orphan.index) }))],
      leafFallback: leafFallback ?? report.leafFallback,
    },
  };
}
