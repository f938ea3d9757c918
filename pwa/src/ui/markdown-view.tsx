import type { ComponentChildren } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { Block } from '../markdown/blocks.js';
import { parseMarkdown } from '../markdown/blocks.js';
import type { Inline } from '../markdown/inline.js';
import { copyText } from './copy-text.js';

/**
 * Renders model output as Markdown. The parser yields plain values and every string here is a
 * text child, which Preact escapes: untrusted text is never HTML.
 */
export function MarkdownView({ text }: { text: string }) {
  const blocks = useMemo(() => parseMarkdown(text), [text]);
  return <>{blocks.map((block, i) => renderBlock(block, i))}</>;
}

function renderBlock(block: Block, key: number): ComponentChildren {
  switch (block.t) {
    case 'p':
      return <p key={key}>{renderInlines(block.children)}</p>;
    case 'h': {
      // Headings inside a message stay below the screen's own headings.
      const Tag = (['h3', 'h3', 'h4', 'h5', 'h6', 'h6'] as const)[block.level - 1] ?? 'h6';
      return <Tag key={key}>{renderInlines(block.children)}</Tag>;
    }
    case 'code':
      return <CodeBlock key={key} lang={block.lang} text={block.text} />;
    case 'quote':
      return <blockquote key={key}>{block.children.map((b, i) => renderBlock(b, i))}</blockquote>;
    case 'list': {
      const items = block.items.map((item, i) => <li key={i}>{item.map((b, j) => renderListBlock(b, j))}</li>);
      return block.ordered ? (
        <ol key={key} start={block.start}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table':
      return (
        <table key={key}>
          <thead>
            <tr>
              {block.head.map((cell, i) => (
                <th key={i}>{renderInlines(cell)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {block.rows.map((row, r) => (
              <tr key={r}>
                {row.map((cell, i) => (
                  <td key={i}>{renderInlines(cell)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      );
    case 'hr':
      return <hr key={key} />;
  }
}

/** A list item's single paragraph renders without a <p>, so tight lists stay tight. */
function renderListBlock(block: Block, key: number): ComponentChildren {
  return block.t === 'p' ? <span key={key}>{renderInlines(block.children)}</span> : renderBlock(block, key);
}

function renderInlines(nodes: Inline[]): ComponentChildren {
  return nodes.map((node, i) => renderInline(node, i));
}

function renderInline(node: Inline, key: number): ComponentChildren {
  switch (node.t) {
    case 'text':
      return node.text;
    case 'code':
      return <code key={key}>{node.text}</code>;
    case 'strong':
      return <strong key={key}>{renderInlines(node.children)}</strong>;
    case 'em':
      return <em key={key}>{renderInlines(node.children)}</em>;
    case 'del':
      return <del key={key}>{renderInlines(node.children)}</del>;
    case 'link':
      return (
        <a key={key} href={node.href} target="_blank" rel="noopener noreferrer nofollow">
          {renderInlines(node.children)}
        </a>
      );
    case 'br':
      return <br key={key} />;
  }
}

export function CodeBlock({ lang, text }: { lang: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    setCopied(await copyText(text));
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <div class="md-code">
      <pre>
        <code data-lang={lang || undefined}>{text}</code>
      </pre>
      <button type="button" class="copy" onClick={() => void copy()} aria-label={`Copy ${lang || 'code'}`}>
        {copied ? 'Copied' : 'Copy'}
      </button>
    </div>
  );
}
