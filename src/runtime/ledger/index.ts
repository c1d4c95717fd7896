export { RunLedger } from './ledger.js';
export type { RunEventHandler, RunLedgerOptions, SubscriberErrorHook } from './ledger.js';
export { SnapshotAccumulator } from './snapshot-accumulator.js';
