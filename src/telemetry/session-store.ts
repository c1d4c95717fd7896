import type { Attributes } from '@opentelemetry/api';
import type { AppendReport, SessionStoreLike, StoredSession } from '../runtime/store/index.js';
import {
  ATTR_CONVERSATION_ID,
  ATTR_SESSION_BYTES,
  ATTR_SESSION_LINES,
  ATTR_SESSION_RECORDS,
  ATTR_SESSION_SKIPPED_LINES,
  ATTR_SESSION_TRUNCATED_TAIL,
  ATTR_SESSION_LIVE_PATH,
  SPAN_SESSION_ACQUIRE,
  SPAN_SESSION_APPEND,
  SPAN_SESSION_READ,
  SPAN_SESSION_RELEASE,
} from './conventions.js';
import type { Instrumentation } from './instrumentation.js';
import { inInternalSpan } from './spans.js';

/**
 * The session store with a span around each method of the seam: `indusagi.session.acquire` (a resume, or
 * the first run of a session), `.read` (the live path or every record: the attribute
 * `indusagi.session.live_path` says which), `.append` and `.release`, each naming the session and saying
 * how many records and bytes it read or wrote when the store says.
 */
export function traceSessionStore(store: SessionStoreLike, inst: Instrumentation): SessionStoreLike {
  const none = () => undefined;
  const traced: SessionStoreLike = {
    acquire: (id) => inSpan(inst, SPAN_SESSION_ACQUIRE, id, () => store.acquire(id), none),
    read: (id) =>
      inSpan(
        inst,
        SPAN_SESSION_READ,
        id,
        () => store.read(id),
        (read) => readAttributes(read, false),
      ),
    append: (lease, records) => inSpan(inst, SPAN_SESSION_APPEND, lease?.sessionId, () => store.append(lease, records), writeAttributes),
    release: (lease) => inSpan(inst, SPAN_SESSION_RELEASE, lease?.sessionId, () => store.release(lease), none),
  };
  const readLivePath = store.readLivePath;
  // Present only when the store has it: a load reads every record from a store without it.
  if (readLivePath !== undefined) {
    traced.readLivePath = (id) =>
      inSpan(
        inst,
        SPAN_SESSION_READ,
        id,
        () => readLivePath.call(store, id),
        (read) => readAttributes(read, 'leaf' in read),
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

function writeAttributes(report: AppendReport | void): Attributes | undefined {
  if (report === undefined) return undefined;
  return { [ATTR_SESSION_RECORDS]: report.records, [ATTR_SESSION_BYTES]: report.bytes };
}

function readAttributes({ report }: StoredSession, livePath: boolean): Attributes {
  const attributes: Attributes = {
    [ATTR_SESSION_RECORDS]: report.records,
    [ATTR_SESSION_LINES]: report.lines,
    [ATTR_SESSION_SKIPPED_LINES]: report.skipped.length,
    [ATTR_SESSION_TRUNCATED_TAIL]: report.truncatedTail,
    [ATTR_SESSION_LIVE_PATH]: livePath,
  };
  if (report.bytes !== undefined) attributes[ATTR_SESSION_BYTES] = report.bytes;
  return attributes;
}
