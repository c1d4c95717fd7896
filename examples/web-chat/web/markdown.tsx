import { useEffect, useMemo, useState, type ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import type { HLJSApi } from 'highlight.js';
import { CopyButton } from './copy.js';

// Model text is markdown, GitHub-flavoured (tables, task lists, strikethrough, autolinks).
// react-markdown builds React elements and drops raw HTML, so a reply quoting `<img onerror=...>` from
// a file shows nothing of it, and it neutralises `javascript:` links; code is highlighted without
// innerHTML either (see `Highlighted`).

export function MarkdownText({ text }: { text: string }) {
  return (
    <div className="text">
      <Markdown remarkPlugins={[remarkGfm]} components={COMPONENTS}>
        {text}
      </Markdown>
    </div>
  );
}

type HastNode = { type: string; value?: string; tagName?: string; properties?: { className?: unknown }; children?: HastNode[] };

const textOf = (node: HastNode): string => (node.type === 'text' ? (node.value ?? '') : (node.children ?? []).map(textOf).join(''));

const COMPONENTS: Components = {
  // A fenced block: `pre` holding one `code` whose class names the language.
  pre({ node }) {
    const code = (node?.children as HastNode[] | undefined)?.find((child) => child.tagName === 'code');
    const classes = code?.properties?.className;
    const language = (Array.isArray(classes) ? classes : []).map(String).find((name) => name.startsWith('language-'));
    return <CodeBlock code={textOf(code ?? { type: 'root' }).replace(/\n$/, '')} language={language?.slice('language-'.length)} />;
  },
  table({ children }) {
    // Wide tables scroll sideways on their own, not the page; the region can be scrolled from the keyboard.
    return (
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Table">
        <table>{children}</table>
      </div>
    );
  },
  // A task list's box (`- [x] ship it`) is a read-only checkbox, which needs a name of its own: what it says.
  input({ node: _node, ...props }) {
    return props.type === 'checkbox' ? <input {...props} aria-label={props.checked ? 'Done' : 'Not done'} /> : <input {...props} />;
  },
  a({ href, children }) {
    return (
      <a href={href} target="_blank" rel="noreferrer noopener">
        {children}
      </a>
    );
  },
};

function CodeBlock({ code, language }: { code: string; language: string | undefined }) {
  const highlighter = useHighlighter();
  return (
    <div className="code-block">
      <div className="code-head">
        <span>{language ?? 'text'}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      <pre tabIndex={0}>
        <code className="hljs">{highlighter ? <Highlighted hljs={highlighter} code={code} language={language} /> : code}</code>
      </pre>
    </div>
  );
}

function Highlighted({ hljs, code, language }: { hljs: HLJSApi; code: string; language: string | undefined }) {
  return useMemo(() => {
    if (language === undefined || hljs.getLanguage(language) === undefined) return code;
    return fromHighlightHtml(hljs.highlight(code, { language, ignoreIllegals: true }).value);
  }, [hljs, code, language]);
}

/**
 * highlight.js answers with HTML: the code, escaped, in `<span class="hljs-…">`. It is parsed in an
 * inert document (nothing in it runs or loads) and rebuilt as React elements keeping only spans and
 * their class, so even a highlighter bug cannot put markup of the model's into the page.
 */
function fromHighlightHtml(html: string): ReactNode[] {
  const body = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html').body;
  const build = (nodes: NodeListOf<ChildNode>): ReactNode[] =>
    [...nodes].map((node, i) => {
      if (node.nodeType === Node.TEXT_NODE) return node.textContent;
      if (node instanceof HTMLSpanElement) {
        return (
          <span key={i} className={node.className}>
            {build(node.childNodes)}
          </span>
        );
      }
      return node.textContent;
    });
  return build(body.childNodes);
}

// highlight.js with its common languages is loaded on the first code block, not with the page.
let loading: Promise<HLJSApi> | undefined;

function useHighlighter(): HLJSApi | null {
  const [hljs, setHljs] = useState<HLJSApi | null>(null);
  useEffect(() => {
    let live = true;
    loading ??= import('highlight.js/lib/common').then((module) => module.default);
    loading.then(
      (loaded) => live && setHljs(loaded),
      // The code shows as plain text, as it did before the highlighter was asked for.
      (error: unknown) => console.error('[web-chat] loading highlight.js failed:', error),
    );
    return () => {
      live = false;
    };
  }, []);
  return hljs;
}
