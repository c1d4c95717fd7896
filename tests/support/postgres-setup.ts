// vitest globalSetup: one PostgreSQL cluster for the whole run (a cluster per test file would cost a
// second or more each), handed to the test files through `inject('postgres')`. With
// INDUSAGI_TEST_DATABASE_URL set, that server is used instead and nothing is started.
import type { TestProject } from 'vitest/node';
import { findBinaries, startCluster, type RunningCluster } from './postgres-cluster.js';

export type PostgresTarget = { url: string; describe: string } | { missing: string };

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: PostgresTarget;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.INDUSAGI_TEST_DATABASE_URL;
  if (given !== undefined && given !== '') {
    project.provide('postgres', { url: given, describe: 'the server in INDUSAGI_TEST_DATABASE_URL' });
    return async () => {};
  }
  const binaries = await findBinaries();
  if ('missing' in binaries) {
    // Under CI a missing server fails the run before any test; elsewhere its tests skip with a notice.
    if (process.env.CI) throw new Error(`CI needs a PostgreSQL server for the Postgres tests: ${binaries.missing}.`);
    project.provide('postgres', binaries);
    return async () => {};
  }
  const cluster: RunningCluster = await startCluster(binaries);
  project.provide('postgres', { url: cluster.url, describe: `${cluster.version} from ${cluster.source}` });
  return () => cluster.stop();
}
