// `indusagi memory ls|rm|edit`: what the agent remembers, shown and corrected by the person it is about.
import type { MemoryRecord } from '../../memory/index.js';
import type { Command } from '../args.js';
import { CliUsageError } from '../errors.js';
import { clipLine } from '../sessions/nodes.js';
import type { Paint } from '../style.js';
import { openMemory } from './open.js';

type MemoryCommand = Extract<Command, { name: 'memory' }>;

const SHORT = 8;

/**
 * `note` gets what opening the memory noticed (a line of the file it could not read, a write a crash
 * cut short), one line each: the listing stays on `write`, the warning is not lost on anyone reading it.
 */
export async function runMemory(
  command: MemoryCommand,
  write: (text: string) => void,
  paint: Paint,
  note: (line: string) => void,
): Promise<void> {
  const memory = await openMemory(command.memory);
  for (const line of memory.notes) note(line);
  try {
    const { store } = memory;
    const scope = command.owner;
    if (command.action === 'ls') {
      const records = await store.list({ scope, includeSuperseded: command.all });
      write(records.length === 0 ? `no memories in ${command.memory}\n` : `${records.map((r) => describe(r, paint)).join('\n')}\n`);
      return;
    }
    const record = resolveRecord(await store.list({ scope, includeSuperseded: true }), command.id, command.memory);
    if (command.action === 'rm') {
      await store.forget(record.id, { scope });
      write(`forgot ${record.id.slice(0, SHORT)}: ${clipLine(record.text, 60)}\n`);
      return;
    }
    const edited = (await store.update(record.id, { text: command.text }, { scope }))!;
    write(`edited ${edited.id.slice(0, SHORT)}: ${clipLine(edited.text, 60)}\n`);
  } finally {
    await memory.close();
  }
}

/** A whole id or a prefix of one that names exactly one record. */
function resolveRecord(records: MemoryRecord[], id: string, where: string): MemoryRecord {
  const exact = records.find((r) => r.id === id);
  if (exact !== undefined) return exact;
  const matches = records.filter((r) => r.id.startsWith(id));
  if (matches.length === 1) return matches[0];
  if (matches.length === 0) throw new CliUsageError(`no memory "${id}" in ${where}; "indusagi memory ls --all" lists them`);
  throw new CliUsageError(
    `"${id}" names ${matches.length} memories (${matches.map((r) => r.id.slice(0, SHORT)).join(', ')}); give more of the id`,
  );
}

/** `id8  2026-11-30 22:04  [kind] text  @resource/session  (superseded by id8)` */
function describe(record: MemoryRecord, paint: Paint): string {
  const when = new Date(record.createdAt).toISOString().replace('T', ' ').slice(0, 16);
  const kind = record.kind === undefined ? '' : paint('dim', `[${record.kind}] `);
  const scope =
    record.scope === undefined
      ? ''
      : paint('dim', `  @${record.scope.resource ?? '*'}${record.scope.session === undefined ? '' : `/${record.scope.session}`}`);
  const retired = record.supersededBy === undefined ? '' : paint('yellow', `  (superseded by ${record.supersededBy.slice(0, SHORT)})`);
  return `${paint('bold', record.id.slice(0, SHORT))}  ${when}  ${kind}${clipLine(record.text, 80)}${scope}${retired}`;
}
