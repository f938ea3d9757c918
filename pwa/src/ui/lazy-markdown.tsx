import { useEffect, useState } from 'preact/hooks';
import type * as MarkdownModule from './markdown-view.js';

type Markdown = typeof MarkdownModule;

/**
 * The Markdown renderer loads after the first screen (it is most of a message's weight and no list
 * screen needs it): until it is there, a message shows as plain text, which Preact escapes like
 * everything else. Asked for once; `preloadMarkdown` starts it early.
 */
let loaded: Markdown | undefined;
let loading: Promise<Markdown> | undefined;

export function preloadMarkdown(): Promise<Markdown> {
  loading ??= import('./markdown-view.js').then((module) => (loaded = module));
  return loading;
}

export function LazyMarkdownView({ text }: { text: string }) {
  const [markdown, setMarkdown] = useState(loaded);
  useEffect(() => {
    if (markdown) return;
    let live = true;
    void preloadMarkdown().then((module) => live && setMarkdown(module));
    return () => {
      live = false;
    };
  }, [markdown]);
  return markdown ? <markdown.MarkdownView text={text} /> : <p class="markdown-pending">{text}</p>;
}
