import { describe, expect, it } from 'vitest';
import { openDatabase, loadVectorExtension } from '../../src/memory-sqlite/driver.js';

describe('sqlite-vec extension', () => {
  it('loads into the better-sqlite3 database and ranks a vec0 table by cosine distance', async () => {
    const db = await openDatabase(':memory:');
    try {
      await loadVectorExtension(db);
      db.exec('CREATE VIRTUAL TABLE v USING vec0(embedding float[2] distance_metric=cosine)');
      const insert = db.prepare('INSERT INTO v (rowid, embedding) VALUES (?, ?)');
      insert.run(1n, new Float32Array([1, 0]));
      insert.run(2n, new Float32Array([0, 1]));
      insert.run(3n, new Float32Array([0.7, 0.7]));
      const rows = db
        .prepare<[Float32Array], { rowid: number; distance: number }>(
          'SELECT rowid, distance FROM v WHERE embedding MATCH ? AND k = 3 ORDER BY distance',
        )
        .all(new Float32Array([0.1, 1]));
      expect(rows.map((r) => r.rowid)).toEqual([2, 3, 1]);
      expect(rows[0].distance).toBeCloseTo(1 - 1 / Math.sqrt(1.01), 5);
    } finally {
      db.close();
    }
  });
});
