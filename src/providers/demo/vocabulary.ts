/**
 * The tools the demo model knows how to call, by the name the model sees (sanitized). A host that
 * wants the demo to drive its tools offers tools under these names; the `indusagi` command names its
 * tools `files.list`, `files.read`, … which sanitize to exactly these.
 */
export const DEMO_TOOLS = {
  list: 'files_list',
  read: 'files_read',
  write: 'files_write',
  edit: 'files_edit',
  bash: 'bash',
  time: 'clock_now',
  remember: 'memory_remember',
  recall: 'memory_recall',
} as const;

export type DemoToolKey = keyof typeof DEMO_TOOLS;
