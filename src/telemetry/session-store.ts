import type { Attributes } from '@opentelemetry/api';
import type { LoadReport } from '../runtime/contract/index.js';
import type { LoadedSession, PersistReport, SessionStoreLike } from '../runtime/store/index.js';
import {
  ATTR_CONVERSATION_ID,
  ATTR_SESSION_BYTES,
  ATTR_SESSION_LINES,
  ATTR_SESSION_RECORDS,
  ATTR_SESSION_SKIPPED_LINES,
  ATTR_SESSION_TRUNCATED_TAIL,
  SPAN_SESSION_CLOSE,
  SPAN_SESSION_LOAD,
  SPAN_SESSION_OPEN,
  SPAN_SESSION_PERSIST,
} from './conventions.js';
import type { Instrumentation } from './instrumentation.js';
import { inInternalSpan } from './spans.js';

/**
 * The session store with a span around each operation: `indusagi.session.open` (a resume, or the first
 * run of a session), `.load`, `.persist` and `.close`, each naming the session and saying how many
 * records and bytes it read or wrote when the store says. Only the methods the conductor uses.
 */
export function traceSessionStore(store: SessionStoreLike, inst: Instrumentation): SessionStoreLike {
  const traced: SessionStoreLike = {
    loadSession: (id) =>
      inSpan(
        inst,
        SPAN_SESSION_LOAD,
        id,
        () => store.loadSession(id),
        () => undefined,
      ),
    openSession: (id) =>
      inSpan(
        inst,
        SPAN_SESSION_OPEN,
        id,
        () => store.openSession(id),
        () => undefined,
      ),
    persist: (graph) => inSpan(inst, SPAN_SESSION_PERSIST, graph?.sessionId, () => store.persist(graph), writeAttributes),
    closeSession: (id) =>
      inSpan(
        inst,
        SPAN_SESSION_CLOSE,
        id,
        () => store.closeSession(id),
        () => undefined,
      ),
  };
  const openWithReport = store.openSessionWithReport;
  // Present only when the store has it: the conductor reads a load report only from stores that give one.
  if (openWithReport !== undefined) {
    traced.openSessionWithReport = (id) =>
      inSpan(
        inst,
        SPAN_SESSION_OPEN,
        id,
        () => openWithReport.call(store, id),
        (loaded: LoadedSession) => readAttributes(loaded.report),
      );
  }
  return traced;
}

function inSpan<T>(
  inst: Instrumentation,
  name: string,
  sessionId: unknown,
  work: () => Promise<T>,
  describe: (result: T) => Attributes | undefined,
): Promise<T> {
  const attributes: Attributes = typeof sessionId === 'string' ? { [ATTR_CONVERSATION_ID]: sessionId } : {};
  return inInternalSpan(inst.tracer, inst.captureContent, name, attributes, work, describe);
}

function writeAttributes(report: PersistReport | void): Attributes | undefined {
  if (report === undefined) return undefined;
  return { [ATTR_SESSION_RECORDS]: report.records, [ATTR_SESSION_BYTES]: report.bytes };
}

function readAttributes(report: LoadReport): Attributes {
  const attributes: Attributes = {
    [ATTR_SESSION_RECORDS]: report.records,
    [ATTR_SESSION_LINES]: report.lines,
    [ATTR_SESSION_SKIPPED_LINES]: report.skipped.length,
    [ATTR_SESSION_TRUNCATED_TAIL]: report.truncatedTail,
  };
  if (report.bytes !== undefined) attributes[ATTR_SESSION_BYTES] = report.bytes;
  return attributes;
}
