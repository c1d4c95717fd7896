// A store built without a connection string says why when the likely reason is INDUSAGI_DATABASE_URL
// being unset (`{ connectionString: process.env.INDUSAGI_DATABASE_URL }`, as the docs write it).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresMemoryStore, PostgresOptionsError, PostgresSessionStore } from '../../src/postgres/index.js';

afterEach(() => void vi.unstubAllEnvs());

describe('a missing connection string', () => {
  it('names INDUSAGI_DATABASE_URL when it is unset, for the session and the memory store', () => {
    vi.stubEnv('INDUSAGI_DATABASE_URL', '');
    for (const given of [{ connectionString: undefined }, { connectionString: '  ' }]) {
      expect(() => new PostgresSessionStore(given as never)).toThrow(PostgresOptionsError);
      expect(() => new PostgresSessionStore(given as never)).toThrow(/INDUSAGI_DATABASE_URL is unset/);
      expect(() => new PostgresMemoryStore(given as never)).toThrow(/INDUSAGI_DATABASE_URL is unset/);
    }
  });

  it('does not blame the variable when it is set, or when no connection string was meant', () => {
    expect(() => new PostgresSessionStore({} as never)).not.toThrow(/INDUSAGI_DATABASE_URL/);
    vi.stubEnv('INDUSAGI_DATABASE_URL', 'postgres://app@db/app');
    expect(() => new PostgresSessionStore({ connectionString: undefined } as never)).toThrow(PostgresOptionsError);
    expect(() => new PostgresSessionStore({ connectionString: undefined } as never)).not.toThrow(/INDUSAGI_DATABASE_URL/);
  });
});
