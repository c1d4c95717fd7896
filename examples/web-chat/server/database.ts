import type { MemoryStore } from 'indusagi';
import { PostgresMemoryStore, PostgresSessionStore } from 'indusagi/postgres';
import type { WebChatStore } from './app.js';

/** Conversations and memory in one PostgreSQL schema, and how to let go of them. */
export type DatabaseStores = { store: WebChatStore; memory: MemoryStore; schema: string; close(): Promise<void> };

/**
 * The stores every server given the same URL and schema shares, so a conversation continues on
 * whichever of them gets the next request. Nothing here migrates (that is `indusagi db migrate`, once
 * per deploy): the schema is checked now, so a database that was never set up stops the server at
 * startup with `PostgresSchemaBehindError`, whose message names that command, instead of failing its
 * first request. Each store checks the version it needs on its first call, so both make one here.
 * Memory keeps a replica of its search index in the server (`replica: true`): a search then costs a
 * version check, and the replica follows the other servers' writes.
 */
export async function openDatabase(url: string, schema: string | undefined): Promise<DatabaseStores> {
  const store = new PostgresSessionStore({ connectionString: url }, { schema });
  const memory = new PostgresMemoryStore({ connectionString: url }, { schema, replica: true });
  const close = async () => {
    await Promise.all([store.close(), memory.close()]);
  };
  try {
    await store.listSessions();
    await memory.get('startup-schema-check');
  } catch (error) {
    await close();
    throw error;
  }
  return { store, memory, schema: store.schema, close };
}
