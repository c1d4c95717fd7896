import { describe, expect, it } from 'vitest';
import {
  buildToolNameMap,
  DuplicateToolError,
  isPendingApproval,
  sanitizeToolName,
  ToolError,
  ToolNameCollisionError,
  toToolset,
  UnknownApprovalError,
  UnknownToolError,
} from '../../src/tools/index.js';
import { IndusagiError } from '../../src/errors/index.js';
import type { ToolDefinition } from '../../src/runtime/contract/index.js';

const schema = { type: 'object', properties: { text: { type: 'string' } } };

describe('tool names', () => {
  it('sanitizes to [a-zA-Z0-9_-], dots becoming underscores', () => {
    expect(sanitizeToolName('notes.list')).toBe('notes_list');
    expect(sanitizeToolName('fs/read file!')).toBe('fs_read_file_');
    expect(sanitizeToolName('ok-Name_9')).toBe('ok-Name_9');
  });

  it('maps both ways and refuses names that sanitize alike', () => {
    const map = buildToolNameMap(['notes.list', 'time']);
    expect(map.toOriginal.get('notes_list')).toBe('notes.list');
    expect(map.toModel.get('notes.list')).toBe('notes_list');
    expect(() => buildToolNameMap(['a.b', 'a_b'])).toThrow(ToolNameCollisionError);
    try {
      buildToolNameMap(['a.b', 'a_b']);
    } catch (error) {
      expect(ToolNameCollisionError.isInstance(error)).toBe(true);
      expect((error as ToolNameCollisionError).kind).toBe('tool_name_collision');
      expect((error as Error).message).toContain('"a.b"');
      expect((error as Error).message).toContain('"a_b"');
    }
  });
});

describe('ToolError', () => {
  it('is recognised by isInstance and by the base class, and plain errors are not', () => {
    const error = new ToolError('no such note');
    expect(ToolError.isInstance(error)).toBe(true);
    expect(IndusagiError.isInstance(error)).toBe(true);
    expect(ToolError.isInstance(new Error('x'))).toBe(false);
    expect(ToolError.isInstance(new UnknownToolError('x'))).toBe(false);
    expect(error.kind).toBe('tool_error');
    expect(error.name).toBe('ToolError');
  });
});

describe('toToolset', () => {
  function counterTool(name: string, needsApproval = false): ToolDefinition & { runs: unknown[] } {
    const runs: unknown[] = [];
    return {
      name,
      description: `the ${name} tool`,
      inputSchema: schema,
      needsApproval,
      runs,
      execute(input, ctx) {
        runs.push({ input, callId: ctx.callId, aborted: ctx.signal.aborted });
        return { echoed: input };
      },
    };
  }

  it('exposes specs under original names in the Anthropic shape, and the names in order', () => {
    const set = toToolset([counterTool('notes.list'), counterTool('time')]);
    expect(set.names).toEqual(['notes.list', 'time']);
    expect(set.tools).toEqual([
      { name: 'notes.list', description: 'the notes.list tool', input_schema: schema },
      { name: 'time', description: 'the time tool', input_schema: schema },
    ]);
  });

  it('runs a tool by its original name and passes the call id and signal', async () => {
    const tool = counterTool('notes.list');
    const set = toToolset([tool]);
    const controller = new AbortController();
    await expect(set.execute('notes.list', { text: 'a' }, { callId: 'call_1', signal: controller.signal })).resolves.toEqual({
      echoed: { text: 'a' },
    });
    expect(tool.runs).toEqual([{ input: { text: 'a' }, callId: 'call_1', aborted: false }]);
  });

  it('rejects unknown names and duplicate definitions with typed errors', async () => {
    const set = toToolset([counterTool('a')]);
    await expect(set.execute('b', {})).rejects.toBeInstanceOf(UnknownToolError);
    expect(() => toToolset([counterTool('a'), counterTool('a')])).toThrow(DuplicateToolError);
  });

  it('holds a needsApproval tool until approved, runs it exactly once, and never runs a rejected one', async () => {
    const tool = counterTool('fs.write', true);
    const set = toToolset([tool]);
    const pending = await set.execute('fs.write', { text: 'x' }, { callId: 'call_w' });
    expect(isPendingApproval(pending)).toBe(true);
    expect(pending).toEqual({ status: 'pending_approval', actionId: 'call_w' });
    expect(tool.runs).toHaveLength(0);

    await expect(set.approve('call_w')).resolves.toEqual({ echoed: { text: 'x' } });
    expect(tool.runs).toHaveLength(1);
    await expect(set.approve('call_w')).rejects.toBeInstanceOf(UnknownApprovalError);
    expect(tool.runs).toHaveLength(1);

    const second = await set.execute('fs.write', { text: 'y' });
    expect(isPendingApproval(second)).toBe(true);
    const actionId = (second as { actionId: string }).actionId;
    expect(set.reject(actionId)).toBe(true);
    expect(set.reject(actionId)).toBe(false);
    await expect(set.approve(actionId)).rejects.toBeInstanceOf(UnknownApprovalError);
    expect(tool.runs).toHaveLength(1);
  });

  it('lets the tool error through unchanged so the loop can tell ToolError from a crash', async () => {
    const set = toToolset([
      {
        name: 'fail',
        description: 'fails',
        inputSchema: schema,
        execute() {
          throw new ToolError('bad input');
        },
      },
    ]);
    await expect(set.execute('fail', {})).rejects.toSatisfy((e) => ToolError.isInstance(e));
  });
});
