import { describe, expect, it, vi } from 'vitest';
import { RunLedger, SnapshotAccumulator } from '../../../src/runtime/ledger/index.js';
import type { RunEvent, RunSnapshot } from '../../../src/runtime/contract/index.js';

const delta = (text: string): RunEvent => ({ kind: 'text_delta', delta: text, runId: 'r1' });

function snapshot(text: string): RunSnapshot {
  return {
    sessionId: 's',
    messages: [],
    text,
    status: 'running',
    pendingApprovals: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 },
  };
}

describe('RunLedger', () => {
  it('delivers every event synchronously, in order, to every subscriber', () => {
    const ledger = new RunLedger();
    const a: string[] = [];
    const b: string[] = [];
    ledger.subscribe((e) => e.kind === 'text_delta' && a.push(e.delta));
    ledger.subscribe((e) => e.kind === 'text_delta' && b.push(e.delta));
    ledger.publish(delta('1'));
    expect(a).toEqual(['1']); // already delivered when publish returns
    ledger.publish(delta('2'));
    expect(a).toEqual(['1', '2']);
    expect(b).toEqual(['1', '2']);
  });

  it('isolates a throwing subscriber and reports each error once through the hook', () => {
    const errors: Array<[unknown, string]> = [];
    const ledger = new RunLedger({ onSubscriberError: (error, event) => errors.push([error, event.kind]) });
    const seen: string[] = [];
    const boom = new Error('boom');
    ledger.subscribe(() => {
      throw boom;
    });
    ledger.subscribe((e) => seen.push(e.kind));
    ledger.publish(delta('x'));
    ledger.publish({ kind: 'settled', snapshot: snapshot(''), runId: 'r1' });
    expect(seen).toEqual(['text_delta', 'settled']);
    expect(errors).toEqual([
      [boom, 'text_delta'],
      [boom, 'settled'],
    ]);
  });

  it('reports subscriber errors on the console by default, never silently', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const ledger = new RunLedger();
      ledger.subscribe(() => {
        throw new Error('visible');
      });
      ledger.publish(delta('x'));
      expect(spy).toHaveBeenCalledTimes(1);
      expect(String(spy.mock.calls[0][0])).toContain('text_delta');
      expect((spy.mock.calls[0][1] as Error).message).toBe('visible');
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps delivering when the error hook itself throws', () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const ledger = new RunLedger({
        onSubscriberError: () => {
          throw new Error('hook broke');
        },
      });
      const seen: string[] = [];
      ledger.subscribe(() => {
        throw new Error('first');
      });
      ledger.subscribe((e) => seen.push(e.kind));
      ledger.publish(delta('x'));
      expect(seen).toEqual(['text_delta']);
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('lets a subscriber dispose itself during delivery without skipping the others', () => {
    const ledger = new RunLedger();
    const seen: string[] = [];
    const dispose = ledger.subscribe(() => {
      seen.push('once');
      dispose();
    });
    ledger.subscribe(() => seen.push('second'));
    ledger.subscribe(() => seen.push('third'));
    ledger.publish(delta('a'));
    ledger.publish(delta('b'));
    expect(seen).toEqual(['once', 'second', 'third', 'second', 'third']);
  });

  it('does not deliver the current event to a subscriber disposed earlier in the same delivery', () => {
    const ledger = new RunLedger();
    const seen: string[] = [];
    let disposeLater = () => {};
    ledger.subscribe(() => {
      seen.push('first');
      disposeLater();
    });
    disposeLater = ledger.subscribe(() => seen.push('later'));
    ledger.publish(delta('a'));
    expect(seen).toEqual(['first']);
    expect(ledger.subscriberCount).toBe(1);
  });

  it('does not deliver the current event to a subscriber added during delivery', () => {
    const ledger = new RunLedger();
    const seen: string[] = [];
    ledger.subscribe(() => {
      if (seen.length === 0) ledger.subscribe((e) => seen.push(`new:${e.kind === 'text_delta' ? e.delta : ''}`));
      seen.push('first');
    });
    ledger.publish(delta('a'));
    ledger.publish(delta('b'));
    expect(seen).toEqual(['first', 'first', 'new:b']);
  });

  it('treats a second dispose call as a no-op', () => {
    const ledger = new RunLedger();
    const seen: number[] = [];
    const dispose = ledger.subscribe(() => seen.push(1));
    ledger.subscribe(() => seen.push(2));
    dispose();
    dispose();
    ledger.publish(delta('a'));
    expect(seen).toEqual([2]);
    expect(ledger.subscriberCount).toBe(1);
  });
});

describe('SnapshotAccumulator', () => {
  it('is empty before any snapshot-bearing event', () => {
    const ledger = new RunLedger();
    const acc = new SnapshotAccumulator();
    acc.attach(ledger);
    ledger.publish(delta('x'));
    expect(acc.getSnapshot()).toBeUndefined();
  });

  it('advances only on snapshot, settled and faulted', () => {
    const ledger = new RunLedger();
    const acc = new SnapshotAccumulator();
    const detach = acc.attach(ledger);
    ledger.publish({ kind: 'snapshot', snapshot: snapshot('a'), runId: 'r1' });
    expect(acc.getSnapshot()?.text).toBe('a');
    ledger.publish({ kind: 'tool_started', name: 't', callId: 'c', input: {}, runId: 'r1' });
    ledger.publish({ kind: 'tool_finished', name: 't', callId: 'c', input: {}, result: 1, isError: false, runId: 'r1' });
    ledger.publish(delta('ignored'));
    expect(acc.getSnapshot()?.text).toBe('a');
    ledger.publish({ kind: 'settled', snapshot: snapshot('b'), runId: 'r1' });
    expect(acc.getSnapshot()?.text).toBe('b');
    ledger.publish({ kind: 'faulted', error: { kind: 'aborted', message: 'stop' }, snapshot: snapshot('c'), runId: 'r1' });
    expect(acc.getSnapshot()?.text).toBe('c');
    detach();
    ledger.publish({ kind: 'snapshot', snapshot: snapshot('after detach'), runId: 'r1' });
    expect(acc.getSnapshot()?.text).toBe('c');
  });
});
