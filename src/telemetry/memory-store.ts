import type { Attributes } from '@opentelemetry/api';
import type { MemoryRecord, MemoryStore, WorkingMemory, WorkingMemoryStore } from '../memory/types.js';
import {
  ATTR_MEMORY_FORGOTTEN,
  ATTR_MEMORY_QUERY_TEXT,
  ATTR_MEMORY_RECORD_COUNT,
  ATTR_MEMORY_RECORD_ID,
  ATTR_MEMORY_RECORDS,
  ATTR_MEMORY_STORE_ID,
  ATTR_MEMORY_WORKING,
  ATTR_MEMORY_WORKING_VERSION,
  ATTR_OPERATION_NAME,
  OP_CREATE_MEMORY,
  OP_DELETE_MEMORY,
  OP_SEARCH_MEMORY,
  OP_UPDATE_MEMORY,
} from './conventions.js';
import type { Instrumentation } from './instrumentation.js';
import { inInternalSpan } from './spans.js';
import { TelemetryOptionsError } from './errors.js';

/** Options of `telemetry.memoryStore`. */
export type MemoryStoreTelemetryOptions = {
  /** `gen_ai.memory.store.id`: which store this is, when an application has several. */
  id?: string;
};

/**
 * The memory store with a span per operation, named as the conventions name memory operations:
 * `create_memory` (`save`), `search_memory` (`search`, and `all`, a search without a query) and
 * `delete_memory` (`forget`), with the record count and id; the query and the records themselves only
 * with `captureContent`. Working memory is traced too when the store keeps it (`getWorking` as
 * `search_memory`, `setWorking` as `update_memory`, `forgetWorking` as `delete_memory`, each marked
 * `indusagi.memory.working`), and every other member of the store (`close`, `path`...) stays reachable,
 * so a traced store can stand wherever the store did.
 */
export function traceMemoryStore<S extends MemoryStore>(store: S, inst: Instrumentation, options: MemoryStoreTelemetryOptions = {}): S {
  if (typeof store?.save !== 'function' || typeof store.search !== 'function' || typeof store.forget !== 'function') {
    throw new TelemetryOptionsError('memoryStore needs a MemoryStore (with save, search and forget)');
  }
  const storeId = options?.id;
  if (storeId !== undefined && (typeof storeId !== 'string' || storeId === ''))
    throw new TelemetryOptionsError('the memory store `id` must be a non-empty string');
  const operation = <T>(name: string, start: Attributes, work: () => Promise<T>, done: (result: T) => Attributes): Promise<T> => {
    const attributes: Attributes = { [ATTR_OPERATION_NAME]: name, ...start };
    if (storeId !== undefined) attributes[ATTR_MEMORY_STORE_ID] = storeId;
    return inInternalSpan(inst.tracer, inst.captureContent, name, attributes, work, done);
  };
  const content = (attributes: Attributes): Attributes => (inst.captureContent ? attributes : {});
  const search = (query: string | undefined, records: MemoryRecord[]): Attributes => ({
    [ATTR_MEMORY_RECORD_COUNT]: records.length,
    ...content({ [ATTR_MEMORY_RECORDS]: recordsJson(records), ...(query === undefined ? {} : { [ATTR_MEMORY_QUERY_TEXT]: query }) }),
  });

  const traced: MemoryStore = {
    save: (text, opts) =>
      operation(
        OP_CREATE_MEMORY,
        { [ATTR_MEMORY_RECORD_COUNT]: 1 },
        () => store.save(text, opts),
        (record) => ({
          [ATTR_MEMORY_RECORD_ID]: record.id,
          ...content({ [ATTR_MEMORY_RECORDS]: recordsJson([record]) }),
        }),
      ),
    search: (query, opts) =>
      operation(
        OP_SEARCH_MEMORY,
        {},
        () => store.search(query, opts),
        (records) => search(query, records),
      ),
    // The owner options pass through untouched: a traced store enforces the same scopes as the store.
    forget: (id, opts) =>
      operation(
        OP_DELETE_MEMORY,
        { [ATTR_MEMORY_RECORD_ID]: id, [ATTR_MEMORY_RECORD_COUNT]: 1 },
        () => store.forget(id, opts),
        (forgotten) => ({
          [ATTR_MEMORY_FORGOTTEN]: forgotten,
        }),
      ),
  };
  const found = (record: MemoryRecord | undefined) => search(undefined, record === undefined ? [] : [record]);
  const { all, get, list, update } = store;
  if (all !== undefined)
    traced.all = () =>
      operation(
        OP_SEARCH_MEMORY,
        {},
        () => all.call(store),
        (records) => search(undefined, records),
      );
  if (get !== undefined)
    traced.get = (id, opts) => operation(OP_SEARCH_MEMORY, { [ATTR_MEMORY_RECORD_ID]: id }, () => get.call(store, id, opts), found);
  if (list !== undefined)
    traced.list = (opts) =>
      operation(
        OP_SEARCH_MEMORY,
        {},
        () => list.call(store, opts),
        (records) => search(undefined, records),
      );
  if (update !== undefined) {
    traced.update = (id, edit, opts) =>
      operation(
        OP_UPDATE_MEMORY,
        { [ATTR_MEMORY_RECORD_ID]: id },
        () => update.call(store, id, edit, opts),
        (record) => ({
          [ATTR_MEMORY_RECORD_COUNT]: record === undefined ? 0 : 1,
          ...content(record === undefined ? {} : { [ATTR_MEMORY_RECORDS]: recordsJson([record]) }),
        }),
      );
  }
  const working = store as Partial<WorkingMemoryStore>;
  const { getWorking, setWorking, forgetWorking } = working;
  const block = (found: WorkingMemory | undefined): Attributes =>
    found === undefined
      ? { [ATTR_MEMORY_RECORD_COUNT]: 0 }
      : {
          [ATTR_MEMORY_RECORD_COUNT]: 1,
          [ATTR_MEMORY_WORKING_VERSION]: found.version,
          ...content({ [ATTR_MEMORY_RECORDS]: JSON.stringify([{ content: found.content }]) }),
        };
  const tracedWorking: Partial<WorkingMemoryStore> = {};
  if (typeof getWorking === 'function')
    tracedWorking.getWorking = (scope) =>
      operation(OP_SEARCH_MEMORY, { [ATTR_MEMORY_WORKING]: true }, () => getWorking.call(store, scope), block);
  if (typeof setWorking === 'function')
    tracedWorking.setWorking = (scope, value, opts) =>
      operation(OP_UPDATE_MEMORY, { [ATTR_MEMORY_WORKING]: true }, () => setWorking.call(store, scope, value, opts), block);
  if (typeof forgetWorking === 'function')
    tracedWorking.forgetWorking = (scope) =>
      operation(
        OP_DELETE_MEMORY,
        { [ATTR_MEMORY_WORKING]: true },
        () => forgetWorking.call(store, scope),
        (forgotten) => ({ [ATTR_MEMORY_FORGOTTEN]: forgotten }),
      );
  Object.assign(traced, tracedWorking);
  forwardTheRest(traced, store);
  return traced as S;
}

/**
 * Gives `traced` every member of `store` it does not trace (a SQLite store's `path` and `close`, a
 * PostgreSQL store's `close`, an app's own methods), read from the store at each use so a getter stays
 * live and a method runs on the store itself.
 */
function forwardTheRest(traced: object, store: object): void {
  const names = new Set<string | symbol>();
  for (let o: object | null = store; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null)
    for (const name of Reflect.ownKeys(o)) if (name !== 'constructor') names.add(name);
  for (const name of names) {
    if (Object.prototype.hasOwnProperty.call(traced, name)) continue;
    Object.defineProperty(traced, name, {
      enumerable: true,
      get() {
        const value: unknown = Reflect.get(store, name, store);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(store) : value;
      },
    });
  }
}

/** Records as `gen_ai.memory.records`: content, id, score and metadata. */
function recordsJson(records: MemoryRecord[]): string {
  return JSON.stringify(records.map((record) => ({ id: record.id, content: record.text, score: record.score, metadata: record.meta })));
}
