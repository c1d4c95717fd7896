// The PostgreSQL server a bench runs against: INDUSAGI_BENCH_DATABASE_URL, else a throwaway cluster
// started the way the tests start theirs.
import { findBinaries, startCluster } from '../tests/support/postgres-cluster.js';

export async function benchDatabase(): Promise<{ url: string; stop: () => Promise<void> }> {
  const given = process.env.INDUSAGI_BENCH_DATABASE_URL;
  if (given !== undefined) return { url: given, stop: async () => {} };
  const binaries = await findBinaries();
  if ('missing' in binaries) throw new Error(`no PostgreSQL server for the bench: ${binaries.missing}`);
  const cluster = await startCluster(binaries);
  console.log(`PostgreSQL: ${cluster.version} (${cluster.source}), a throwaway cluster`);
  return { url: cluster.url, stop: cluster.stop };
}
