// The chat on a terminal: the persistent screen's UI (editor, pickers, approval prompts, completion),
// the view that shows runs on it, and the workspace's prompt history.
export { TerminalUi } from './ui.js';
export type { TerminalUiOptions } from './ui.js';
export { TerminalView } from './terminal-view.js';
export { PromptEditor } from './editor.js';
export type { EditorView, EditResult, Key } from './editor.js';
export { PromptHistory, HISTORY_FILE } from './history.js';
export { atToken, fuzzyScore, rankPaths, workspacePaths } from './completion.js';
