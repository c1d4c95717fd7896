import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazyToolset, LazyToolsetInputError, SEARCH_TOOLS, UnknownToolError, tool } from '../../src/tools/index.js';
import { DuplicateToolError, ToolError, ToolNameCollisionError } from '../../src/entries/errors.js';
import type { AnthropicToolSpec } from '../../src/tools/index.js';

const schema = { type: 'object', properties: { id: { type: 'string' } } };
const spec = (name: string, description: string): AnthropicToolSpec => ({ name, description, input_schema: schema });

const catalogue = [
  spec('notes.list', 'List the notes in a folder.'),
  spec('notes.add', 'Add a note to a folder.'),
  spec('billing.createInvoice', 'Create an invoice for a customer and email it.'),
  spec('billing.refund', 'Refund a payment to a customer.'),
  spec('calendar.schedule', 'Schedule a meeting on the calendar.'),
  spec('weather.forecast', 'Get the weather forecast for a city.'),
];

const names = (tools: { name: string }[]) => tools.map((t) => t.name);

describe('lazyToolset', () => {
  it('starts with search_tools and the pinned tools only, under the names the model can use', () => {
    const lazy = lazyToolset(catalogue, { pin: ['notes.list'] });
    expect(names(lazy.tools())).toEqual([SEARCH_TOOLS, 'notes_list']);
    // Handed out in the runtime's own shape, whatever shape they came in.
    expect(lazy.tools()[1]).toEqual({ name: 'notes_list', description: 'List the notes in a folder.', inputSchema: schema });
    expect(lazy.pinned).toEqual(['notes.list']);
    expect(lazy.loaded()).toEqual([]);
    const search = lazy.tools()[0];
    expect(search.inputSchema).toMatchObject({ type: 'object', properties: { query: { type: 'string' } }, required: ['query'] });
  });

  it("takes the runtime's own tools too: ModelTools as they are, a ToolDefinition's Standard Schema as its JSON Schema", () => {
    const lookup = tool({
      name: 'crm.lookup',
      description: 'Look a customer up by id.',
      inputSchema: z.object({ id: z.string() }),
      execute: () => 'found',
    });
    const lazy = lazyToolset([{ name: 'notes.list', description: 'List the notes.', inputSchema: schema }, lookup], {
      pin: ['notes.list', 'crm.lookup'],
    });
    const [, notes, crm] = lazy.tools();
    expect(notes).toEqual({ name: 'notes_list', description: 'List the notes.', inputSchema: schema });
    // What the model reads is the derived JSON Schema, never the zod object itself.
    expect(crm.name).toBe('crm_lookup');
    expect(crm.inputSchema).toMatchObject({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] });
    expect(crm.inputSchema).not.toBe(lookup.inputSchema);
  });

  it('maps every sanitized name back to the original', () => {
    const lazy = lazyToolset(catalogue, { pin: ['notes.list'] });
    expect(lazy.nameMap.get('billing_createInvoice')).toBe('billing.createInvoice');
    expect(lazy.nameMap.get('notes_list')).toBe('notes.list');
    expect(lazy.nameMap.size).toBe(catalogue.length);
  });

  it('puts a short, fixed menu of the unpinned tools in the system text', () => {
    const lazy = lazyToolset(catalogue, { pin: ['notes.list'] });
    expect(lazy.menu).toContain(SEARCH_TOOLS);
    for (const name of ['notes_add', 'billing_createInvoice', 'weather_forecast']) expect(lazy.menu).toContain(name);
    expect(lazy.menu).not.toContain('notes_list');
    const before = lazy.menu;
    lazy.search('invoice');
    expect(lazy.menu).toBe(before);
  });

  it('caps the menu at menuSize names and counts the rest', () => {
    const many = Array.from({ length: 120 }, (_, i) => spec(`tool${i}`, `Tool number ${i}.`));
    const lazy = lazyToolset(many, { menuSize: 10 });
    expect(lazy.menu).toContain('tool9, and 110 more');
    expect(lazy.menu).not.toContain('tool10');
    expect(lazyToolset([spec('only', 'x')], { pin: ['only'] }).menu).toBe('');
  });

  it('answers a search with { found: [{ name, description }], note } and makes the found tools callable next', () => {
    const lazy = lazyToolset(catalogue, { pin: ['notes.list'] });
    const result = lazy.search('create invoices');
    expect(result.found[0]).toEqual({ name: 'billing_createInvoice', description: 'Create an invoice for a customer and email it.' });
    expect(result.note).toContain('billing_createInvoice');
    expect(names(lazy.tools())).toEqual([SEARCH_TOOLS, 'notes_list', ...names(result.found)]);
    expect(lazy.loaded()).toEqual(result.found.map((f) => lazy.nameMap.get(f.name)));
  });

  it('finds nothing with an explanatory note when no tool matches', () => {
    const lazy = lazyToolset(catalogue);
    const result = lazy.search('telescope astronomy');
    expect(result.found).toEqual([]);
    expect(result.note).toMatch(/No unloaded tool matched "telescope astronomy"/);
    expect(lazy.search('').found).toEqual([]);
    expect(names(lazy.tools())).toEqual([SEARCH_TOOLS]);
  });

  it('never returns a tool that is already loaded or pinned', () => {
    const lazy = lazyToolset(catalogue, { pin: ['notes.list'], k: 1 });
    expect(names(lazy.search('notes').found)).toEqual(['notes_add']);
    expect(lazy.search('notes').found).toEqual([]);
    expect(lazy.search('notes list folder').found).toEqual([]);
    const everything = lazyToolset(catalogue.slice(0, 2), { k: 5 });
    everything.search('note folder');
    expect(everything.search('note folder').note).toMatch(/Every tool is already loaded/);
  });

  it('returns at most k tools per search (default 5)', () => {
    const many = Array.from({ length: 30 }, (_, i) => spec(`report.kind${i}`, `Build a sales report, variant ${i}.`));
    expect(lazyToolset(many).search('sales report').found).toHaveLength(5);
    expect(lazyToolset(many, { k: 2 }).search('sales report').found).toHaveLength(2);
  });

  it('ranks by name and description with rare words outweighing common ones, as memory does', () => {
    const tools = [
      ...Array.from({ length: 8 }, (_, i) => spec(`customer.op${i}`, `Update the customer record, step ${i}.`)),
      spec('customer.merge', 'Merge two duplicate customer records.'),
      spec('crm.deduplicate', 'Find duplicates in the CRM.'),
    ];
    const lazy = lazyToolset(tools, { k: 3 });
    expect(lazy.search('merge customer').found[0].name).toBe('customer_merge');
    const byName = lazyToolset(tools, { k: 1 });
    expect(byName.search('deduplicate').found[0].name).toBe('crm_deduplicate');
    expect(lazyToolset(catalogue, { k: 1 }).search('billing_refund').found[0].name).toBe('billing_refund');
  });

  it('runs a model call through handle, and answers bad input with a ToolError the model can read', () => {
    const lazy = lazyToolset(catalogue);
    expect(lazy.isMetaTool(SEARCH_TOOLS)).toBe(true);
    expect(lazy.isMetaTool('notes_list')).toBe(false);
    expect(names(lazy.handle({ query: 'weather' }).found)).toEqual(['weather_forecast']);
    for (const bad of [undefined, null, 'weather', { q: 'weather' }, { query: 3 }]) {
      expect(() => lazy.handle(bad)).toThrow(ToolError);
    }
    // Checked against search_tools' own input_schema, with the same error every tool's invalid input gets.
    expect(() => lazy.handle({ query: 3 })).toThrow(
      /Invalid input for tool "search_tools" \(1 problem\); the tool did not run[\s\S]*- \/query: .*Expected "string"/,
    );
    expect(() => lazy.handle({ q: 'weather' })).toThrow(/- \(the whole value\): .*required property "query"/);
    expect(() => lazy.handle(undefined)).toThrow(/No value was given/);
  });

  it('reset unloads what searches loaded and keeps the pinned tools', () => {
    const lazy = lazyToolset(catalogue, { pin: ['notes.list'] });
    lazy.search('weather');
    lazy.reset();
    expect(names(lazy.tools())).toEqual([SEARCH_TOOLS, 'notes_list']);
    expect(names(lazy.search('weather').found)).toEqual(['weather_forecast']);
  });

  it('throws ToolNameCollisionError when two names sanitize alike, or one shadows search_tools', () => {
    expect(() => lazyToolset([spec('a.b', 'x'), spec('a_b', 'y')])).toThrow(ToolNameCollisionError);
    expect(() => lazyToolset([spec('a.b', 'x'), spec('a_b', 'y')])).toThrow(/"a\.b" and "a_b" both become "a_b"/);
    expect(() => lazyToolset([spec('search.tools', 'x')])).toThrow(ToolNameCollisionError);
  });

  it('rejects duplicate names, malformed specs, unknown pins and bad options with typed errors', () => {
    expect(() => lazyToolset([spec('a', 'x'), spec('a', 'y')])).toThrow(DuplicateToolError);
    expect(() => lazyToolset('tools' as unknown as unknown[])).toThrow(LazyToolsetInputError);
    expect(() => lazyToolset([{ name: 'a', input_schema: schema }])).toThrow(/tools\[0\] \("a"\) has no string description/);
    expect(() => lazyToolset([{ name: 'a', description: 'x' }])).toThrow(/has no inputSchema \(or input_schema\) object/);
    expect(() => lazyToolset([{ name: 'a', description: 'x', inputSchema: schema, input_schema: schema }])).toThrow(
      /has both inputSchema and input_schema/,
    );
    expect(() => lazyToolset([{ description: 'x', input_schema: schema }])).toThrow(/tools\[0\]\.name/);
    expect(() => lazyToolset(catalogue, { pin: ['notes.missing'] })).toThrow(UnknownToolError);
    expect(() => lazyToolset(catalogue, { k: 0 })).toThrow(LazyToolsetInputError);
    expect(() => lazyToolset(catalogue, { k: 2.5 })).toThrow(LazyToolsetInputError);
  });
});
