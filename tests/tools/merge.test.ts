import { describe, expect, it } from 'vitest';
import {
  DuplicateToolError,
  InvalidToolsetError,
  mergeToolsets,
  ToolError,
  ToolNameCollisionError,
  toToolset,
  UnknownApprovalError,
  UnknownToolError,
} from '../../src/tools/index.js';
import type { Toolset } from '../../src/tools/index.js';
import type { ToolDefinition } from '../../src/runtime/contract/tool.js';

const schema = { type: 'object', properties: {} };
const tool = (name: string, execute: ToolDefinition['execute'], extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `${name} tool`,
  inputSchema: schema,
  execute,
  ...extra,
});

describe('mergeToolsets', () => {
  it('lists every tool in argument order and runs each call on the toolset that owns the tool', async () => {
    const ran: string[] = [];
    const notes = toToolset([
      tool('notes.list', () => (ran.push('notes.list'), ['a'])),
      tool('notes.add', (input) => (ran.push('notes.add'), input)),
    ]);
    const mail = toToolset([tool('mail.send', (input: { to: string }) => (ran.push('mail.send'), `sent to ${input.to}`))]);
    const merged = mergeToolsets(notes, mail);
    expect(merged.tools.map((t) => t.name)).toEqual(['notes.list', 'notes.add', 'mail.send']);
    expect(merged.names).toEqual(['notes.list', 'notes.add', 'mail.send']);
    expect(await merged.execute('mail.send', { to: 'ana' })).toBe('sent to ana');
    expect(await merged.execute('notes.list', {})).toEqual(['a']);
    expect(ran).toEqual(['mail.send', 'notes.list']);
  });

  it('passes a tool error through unchanged', async () => {
    const merged = mergeToolsets(
      toToolset([
        tool('fails', () => {
          throw new ToolError('quota exceeded');
        }),
      ]),
    );
    await expect(merged.execute('fails', {})).rejects.toSatisfy(
      (e: unknown) => ToolError.isInstance(e) && (e as Error).message === 'quota exceeded',
    );
  });

  it('refuses the same name in two toolsets with DuplicateToolError', () => {
    const a = toToolset([tool('search', () => 1)]);
    const b = toToolset([tool('search', () => 2)]);
    expect(() => mergeToolsets(a, b)).toThrow(DuplicateToolError);
    expect(() => mergeToolsets(a, b)).toThrow(/"search"/);
  });

  it('refuses names the model would see as one (a.b and a_b) with ToolNameCollisionError', () => {
    const a = toToolset([tool('files.read', () => 1)]);
    const b = toToolset([tool('files_read', () => 2)]);
    const error = (() => {
      try {
        mergeToolsets(a, b);
      } catch (e) {
        return e;
      }
    })();
    expect(ToolNameCollisionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ first: 'files.read', second: 'files_read', sanitized: 'files_read' });
  });

  it('sends approvals and rejections back to the toolset whose tool asked, once', async () => {
    const deleted: string[] = [];
    const plain = toToolset([tool('ping', () => 'pong')]);
    const guarded = toToolset([
      tool('files.delete', (input: { path: string }) => (deleted.push(input.path), 'deleted'), { needsApproval: true }),
    ]);
    const merged = mergeToolsets(plain, guarded);

    const pending = (await merged.execute('files.delete', { path: '/tmp/a' }, { callId: 'call-1' })) as {
      status: string;
      actionId: string;
    };
    expect(pending).toEqual({ status: 'pending_approval', actionId: 'call-1' });
    expect(deleted).toEqual([]);
    expect(await merged.approve('call-1')).toBe('deleted');
    expect(deleted).toEqual(['/tmp/a']);
    await expect(merged.approve('call-1')).rejects.toBeInstanceOf(UnknownApprovalError);

    await merged.execute('files.delete', { path: '/tmp/b' }, { callId: 'call-2' });
    expect(merged.reject('call-2')).toBe(true);
    expect(merged.reject('call-2')).toBe(false);
    await expect(merged.approve('call-2')).rejects.toBeInstanceOf(UnknownApprovalError);
    expect(deleted).toEqual(['/tmp/a']);
  });

  it('refuses an unknown tool name and anything that is not a toolset', async () => {
    const merged = mergeToolsets(toToolset([tool('ping', () => 'pong')]));
    await expect(merged.execute('pong', {})).rejects.toBeInstanceOf(UnknownToolError);
    expect(() => mergeToolsets(null as unknown as Toolset)).toThrow(InvalidToolsetError);
    expect(() => mergeToolsets({ tools: [] } as unknown as Toolset)).toThrow(/argument 0 .*`execute` is not a function/);
    expect(() => mergeToolsets(merged, [] as unknown as Toolset)).toThrow(/argument 1/);
  });

  it('merges merged toolsets', async () => {
    const inner = mergeToolsets(toToolset([tool('a', () => 'A')]), toToolset([tool('b', () => 'B')]));
    const outer = mergeToolsets(inner, toToolset([tool('c', () => 'C')]));
    expect(outer.names).toEqual(['a', 'b', 'c']);
    expect(await outer.execute('b', {})).toBe('B');
  });
});
