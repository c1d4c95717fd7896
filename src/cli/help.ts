import { SLASH_HELP } from './chat/slash.js';
import { DEFAULT_MEMORY, DEFAULT_STORE } from './args.js';

export const USAGE = `indusagi: a terminal agent over the Anthropic Messages API

usage:
  indusagi chat [--session ID] [--model M] [--store DIR] [--memory FILE]
  indusagi sessions ls [--store DIR]
  indusagi sessions show ID [--store DIR]
  indusagi sessions tree ID [--store DIR]
  indusagi sessions export ID [--format md|json] [--store DIR]
  indusagi help | --version

Sessions live in --store (default ./${DEFAULT_STORE}), remembered facts in --memory
(default ./${DEFAULT_MEMORY}). The file tools reach only the current folder.
With ANTHROPIC_API_KEY set the chat talks to Claude (ANTHROPIC_BASE_URL for another
Anthropic-compatible endpoint); without it, to the offline demo model.

in a chat:
${SLASH_HELP.map((line) => `  ${line}`).join('\n')}
`;
