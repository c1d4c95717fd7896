// Read-only views of stored sessions, shared by `indusagi sessions …` and the chat's slash commands.
export { runSessions, listSessions, loadExisting } from './command.js';
export { renderTree, treeRows } from './tree.js';
export { renderTranscript, describeSession, exportJson, exportMarkdown } from './transcript.js';
export { resolveNode, shortId, excerpt } from './nodes.js';
