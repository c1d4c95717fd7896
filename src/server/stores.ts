import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { MemoryStore } from '../memory/types.js';
import { PostgresMemoryStore, PostgresSessionStore, type PoolLike } from '../postgres/index.js';
import { SessionStore, type SessionGraph, type SessionStoreLike } from '../runtime/store/index.js';
import { tenantFolder } from './backend/local/files.js';

/** A session store the server can read threads from as well as run agents over. */
export type ServedSessionStore = SessionStoreLike & { loadSession(id: string): Promise<SessionGraph> };

/** Where each tenant's sessions and memory are: the tenant is the store's wall, never a filter of ours. */
export type TenantStores = {
  sessions(tenant: string): ServedSessionStore;
  memory(tenant: string): MemoryStore | undefined;
  /** Deletes a thread's session where its store keeps it as a file; a database store keeps it (see docs/server.md). */
  removeSession(tenant: string, id: string): Promise<void>;
  close(): Promise<void>;
};

/** Tenant stores made on first use and kept for the life of the server. */
class Cache<T> {
  readonly made = new Map<string, T>();
  constructor(private readonly make: (tenant: string) => T) {}
  get(tenant: string): T {
    let value = this.made.get(tenant);
    if (value === undefined) this.made.set(tenant, (value = this.make(tenant)));
    return value;
  }
}

/** One machine: session files under `<dir>/tenants/<tenant>/sessions`, memory as the caller gives it. */
export function fileStores(dir: string, memory?: (tenant: string) => MemoryStore | undefined): TenantStores {
  const sessions = new Cache((tenant) => new SessionStore(join(dir, 'tenants', tenantFolder(tenant), 'sessions')));
  return {
    sessions: (tenant) => sessions.get(tenant),
    memory: (tenant) => memory?.(tenant),
    async removeSession(tenant, id) {
      await rm(sessions.get(tenant).pathOf(id), { force: true });
    },
    close: async () => {},
  };
}

/** PostgreSQL: a session and a memory store per tenant, on the server's pool, in its schema. */
export function postgresStores(
  pool: PoolLike,
  schema: string,
  leaseMs: number,
  memory?: (tenant: string) => MemoryStore | undefined,
): TenantStores {
  const sessions = new Cache((tenant) => new PostgresSessionStore({ pool }, { schema, tenant, leaseMs }));
  const memories = new Cache((tenant) => new PostgresMemoryStore({ pool }, { schema, tenant }));
  return {
    sessions: (tenant) => sessions.get(tenant),
    memory: (tenant) => (memory === undefined ? memories.get(tenant) : memory(tenant)),
    removeSession: async () => {},
    async close() {
      await Promise.allSettled([...sessions.made.values(), ...memories.made.values()].map((store) => store.close()));
    },
  };
}

/** Caller-given stores, cached per tenant the same way. */
export function givenStores(
  sessions: (tenant: string) => ServedSessionStore,
  memory: ((tenant: string) => MemoryStore | undefined) | undefined,
): TenantStores {
  const cached = new Cache(sessions);
  return {
    sessions: (tenant) => cached.get(tenant),
    memory: (tenant) => memory?.(tenant),
    removeSession: async () => {},
    close: async () => {},
  };
}
