import type { ToolDefinition } from '../../runtime/contract/tool.js';

/** `clock.now`: the current time, in UTC and in the machine's own zone. */
export function clockTool(): ToolDefinition {
  return {
    name: 'clock.now',
    description: 'The current date and time.',
    inputSchema: { type: 'object', properties: {} },
    execute() {
      const date = new Date();
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      return `${date.toISOString()} (${date.toLocaleString('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' })}, ${zone})`;
    },
  };
}
