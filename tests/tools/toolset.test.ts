import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildToolNameMap, isPendingApproval, tool, sanitizeToolName, toToolset, UnknownToolError } from '../../src/tools/index.js';
import { DuplicateToolError, ToolError, ToolInputError, ToolNameCollisionError, UnknownApprovalError } from '../../src/entries/errors.js';
import { IndusagiError } from '../../src/errors/index.js';
import type { ModelInvoker, RunEvent, ToolDefinition } from '../../src/runtime/contract/index.js';
import { createConductor } from '../../src/runtime/agent/index.js';
import { partOfEvent } from '../../src/parts/index.js';

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

  it('holds calls as the PendingApprovals an agent holds, lists them, and forgets each once approved or rejected', async () => {
    const tool = counterTool('fs.write', true);
    // The same call held by an agent (through the model seam) and by a toolset.
    const invokeModel: ModelInvoker = async () => ({
      turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'call_w', name: 'fs_write', input: { text: 'x' } }] },
      stopReason: 'tool_use',
    });
    const agent = createConductor({ model: 'm', tools: [tool] }, { invokeModel });
    expect((await agent.submit('write x')).status).toBe('waiting');
    const set = toToolset([tool]);
    await set.execute('fs.write', { text: 'x' }, { callId: 'call_w' });
    await set.execute('fs.write', { text: 'y' }, { callId: 'call_y' });

    expect(set.pendingApprovals()[0]).toEqual(agent.pendingApprovals()[0]);
    expect(set.pendingApprovals()).toEqual([
      { approvalId: 'call_w', callId: 'call_w', name: 'fs.write', input: { text: 'x' } },
      { approvalId: 'call_y', callId: 'call_y', name: 'fs.write', input: { text: 'y' } },
    ]);
    // A copy: changing the list changes nothing held.
    set.pendingApprovals()[0].name = 'fs.delete';
    expect(set.pendingApprovals()[0].name).toBe('fs.write');

    await set.approve('call_w');
    expect(set.reject('call_y')).toBe(true);
    expect(set.pendingApprovals()).toEqual([]);
    expect(tool.runs).toEqual([{ input: { text: 'x' }, callId: 'call_w', aborted: false }]);
    await agent.close();
  });

  it('runs an approved call under its own id with the signal approve is given', async () => {
    const tool = counterTool('fs.write', true);
    const set = toToolset([tool]);
    await set.execute('fs.write', { text: 'x' }, { callId: 'call_w' });
    const controller = new AbortController();
    controller.abort();
    await set.approve('call_w', { signal: controller.signal, callId: 'someone-else' });
    expect(tool.runs).toEqual([{ input: { text: 'x' }, callId: 'call_w', aborted: true }]);
  });

  it('checks a held call again when it is approved: input no longer valid never runs, and the call is spent', async () => {
    let writable = true;
    const runs: unknown[] = [];
    const set = toToolset([
      tool({
        name: 'fs.write',
        description: 'Write a file.',
        inputSchema: z.object({ path: z.string() }).refine(() => writable, 'The disk is read-only now.'),
        needsApproval: true,
        execute: (input) => (runs.push(input), 'written'),
      }),
    ]);
    await set.execute('fs.write', { path: 'a.txt' }, { callId: 'call_w' });
    writable = false;
    await expect(set.approve('call_w')).rejects.toSatisfy((e: unknown) => ToolInputError.isInstance(e) && /read-only/.test(String(e)));
    expect(runs).toEqual([]);
    expect(set.pendingApprovals()).toEqual([]);
  });

  it("makes the same tool part for a toolset's held call as for a call the agent holds", async () => {
    const set = toToolset([counterTool('fs.write', true)]);
    const held = await set.execute('fs.write', { text: 'x' }, { callId: 'call_w' });
    const call = { name: 'fs.write', callId: 'call_w', input: { text: 'x' }, runId: 'r1' };
    const finished: RunEvent = { kind: 'tool_finished', ...call, result: held, isError: false };
    const requested: RunEvent = { kind: 'approval_requested', approvalId: 'call_w', ...call };
    expect(partOfEvent(finished)).toEqual(partOfEvent(requested));
    expect(partOfEvent(finished)).toEqual({
      type: 'tool',
      name: call.name,
      callId: call.callId,
      input: call.input,
      result: { status: 'pending_approval', actionId: 'call_w' },
      approvalId: 'call_w',
    });
    // The same shape returned as data is only data.
    const forged: RunEvent = { ...finished, result: { status: 'pending_approval', actionId: 'call_w' } } as RunEvent;
    expect(partOfEvent(forged)).not.toHaveProperty('approvalId');
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
