// Vouched ranges: what a writer of ours wrote (or read and checked) it vouches for in its checkpoints
// with a CRC, so a resume may parse those bytes without checking every record again; bytes that no
// longer match (a hand edit, a foreign tool) get the full check and the same reports as before.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionStore, SessionWriter } from '../../../src/runtime/store/index.js';
import type { Turn } from '../../../src/runtime/contract/index.js';
import { assistant, tempRoot, toolCall, toolResult, user } from './helpers.js';

let root: string;
let cleanup: () => void;
beforeEach(() => ({ root, cleanup } = tempRoot({ ramBacked: true })));
afterEach(() => cleanup());

type Range = [number, number];
type CheckpointLine = { offset: number; live: Range[]; vouched?: Array<[number, number, number]> };

/** The file's last checkpoint, parsed. */
function lastCheckpoint(path: string): CheckpointLine {
  const line = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .findLast((text) => text.startsWith('{"type":"checkpoint",'));
  if (line === undefined) throw new Error('no checkpoint in the file');
  return JSON.parse(line) as CheckpointLine;
}

/** True when every byte of `ranges` lies in one of `vouched`, and each of those has the CRC of the file's bytes. */
function vouchedFor(bytes: Buffer, ranges: readonly Range[], vouched: ReadonlyArray<[number, number, number]>): boolean {
  if (!vouched.every(([start, end, crc]) => crc32(bytes.subarray(start, end)) === crc)) return false;
  return ranges.every(([start, end]) => {
    for (let at = start; at < end;) {
      const next = vouched.find(([from, to]) => from <= at && at < to);
      if (next === undefined) return false;
      at = next[1];
    }
    return true;
  });
}

/** A session of `runs` runs of four turns (a tool call among them, some text beyond ASCII), a persist per run. */
async function session(store: SessionStore, runs: number, from = 0): Promise<{ leaf: string; context: Turn[] }> {
  const writer = await SessionWriter.open(store, 's');
  for (let i = from; i < from + runs; i++) {
    writer.append(user(`question ${i}: ${'why does the büild fail ✓ '.repeat(8)}`), i * 10 + 1);
    writer.append(toolCall(`call-${i}`, 'files.search', { query: `module ${i}` }), i * 10 + 2);
    writer.append(toolResult(`call-${i}`, `found ${'src/module.ts '.repeat(20)}`), i * 10 + 3);
    writer.append(assistant(`answer ${i} ${'words '.repeat(40)}`), i * 10 + 4);
    await writer.persist();
  }
  const leaf = writer.graph.leaf!;
  const context = writer.graph.contextTo(leaf);
  await writer.close();
  return { leaf, context };
}

describe('vouched ranges', () => {
  it('cover the live context with the CRC of its bytes, across writers that resumed from the end', async () => {
    const store = new SessionStore(root);
    await session(store, 200);
    const { leaf, context } = await session(store, 200, 200); // a second writer, resumed from the first one's checkpoint
    const path = store.pathOf('s');
    const checkpoint = lastCheckpoint(path);
    expect(checkpoint.vouched?.length).toBeGreaterThan(1);
    expect(vouchedFor(readFileSync(path), checkpoint.live, checkpoint.vouched!)).toBe(true);

    const { graph, report } = await new SessionStore(root).loadSessionWithReport('s');
    expect(report).toMatchObject({ scope: 'tail', fullScanReason: null, skipped: [] });
    expect(graph.leaf).toBe(leaf);
    expect(graph.resume(leaf)).toEqual(context);
  });

  it('give a hand-edited record in them the full check: the load reads the whole file and reports the line', async () => {
    const store = new SessionStore(root);
    const { leaf, context } = await session(store, 200);
    const path = store.pathOf('s');
    const text = readFileSync(path, 'utf8');
    const lines = text.split('\n');
    // A node record, well-formed JSON of the same length, whose role no turn has: the bytes still sit where
    // the checkpoint says, only their CRC changed.
    const edited = lines.findIndex((line, i) => i > 20 && line.includes('"role":"user"') && line.startsWith('{"type":"node"'));
    lines[edited] = lines[edited].replace('"role":"user"', '"role":"xser"');
    writeFileSync(path, lines.join('\n'));
    const { offset, live } = lastCheckpoint(path);
    const at = lines.slice(0, edited).join('\n').length + 1;
    expect(live.some(([start, end]) => start <= at && at < end) && at < offset).toBe(true); // inside a vouched live range

    const { graph, report } = await new SessionStore(root).loadSessionWithReport('s');
    expect(report.scope).toBe('file');
    expect(report.fullScanReason).toMatch(/in the checkpoint's live range .*malformed node record: the turn role is "xser"/);
    expect(report.skipped).toEqual([
      { line: edited + 1, reason: expect.stringMatching(/^malformed node record: the turn role is "xser"/) },
    ]);
    // The damaged turn cuts the path: the leaf falls back, visibly, as it always did.
    expect(report.leafFallback).toMatchObject({ recorded: leaf });
    expect(graph.leaf).not.toBe(leaf);
    expect(graph.resume(graph.leaf!).length).toBeLessThan(context.length);
  });

  it('are not needed: checkpoints written before them still resume from the end, and the next writer vouches again', async () => {
    const store = new SessionStore(root);
    const { leaf, context } = await session(store, 200);
    const path = store.pathOf('s');
    // The last checkpoint as the previous version wrote it: no "vouched" field, the checksum over the rest.
    // It still sits where it says: only what follows it moved.
    const bytes = readFileSync(path);
    const { offset } = lastCheckpoint(path);
    const end = bytes.indexOf(0x0a, offset);
    const line = bytes.toString('utf8', offset, end);
    const body = line.slice(0, line.lastIndexOf(',"sum":"')).replace(/,"vouched":\[.*\]$/, '');
    expect(body.length).toBeLessThan(line.length - 30);
    const sum = createHash('sha256').update(body).digest('hex').slice(0, 16);
    writeFileSync(path, Buffer.concat([bytes.subarray(0, offset), Buffer.from(`${body},"sum":"${sum}"}`), bytes.subarray(end)]));
    expect(lastCheckpoint(path).vouched).toBeUndefined();
    const reader = new SessionStore(root);
    const before = await reader.loadSessionWithReport('s');
    expect(before.report).toMatchObject({ scope: 'tail', fullScanReason: null });
    expect(before.graph.resume(leaf)).toEqual(context);

    const next = await session(reader, 50, 200);
    const after = await new SessionStore(root).loadSessionWithReport('s');
    expect(after.report.scope).toBe('tail');
    expect(after.graph.resume(next.leaf)).toEqual(next.context);
    const { vouched } = lastCheckpoint(path);
    // Only what the new writer wrote, or read and checked itself: from the old checkpoint on.
    expect(vouched!.length).toBeGreaterThan(0);
    expect(vouched![0][0]).toBeGreaterThanOrEqual(offset);
    expect(vouchedFor(readFileSync(path), [], vouched!)).toBe(true);
  });
});
