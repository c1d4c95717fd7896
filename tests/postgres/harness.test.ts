import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { postgresUrl } from '../support/postgres.js';

describe.skipIf(postgresUrl === undefined)("the test run's PostgreSQL server", () => {
  it('accepts connections and runs full-text search', async () => {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT array_to_tsvector(ARRAY['univers','librari']) @@ 'univers'::tsquery AS hit, current_user AS who",
      );
      expect(rows).toEqual([{ hit: true, who: 'postgres' }]);
    } finally {
      await client.end();
    }
  });
});
