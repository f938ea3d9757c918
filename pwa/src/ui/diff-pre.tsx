import type { DiffLine } from './diff-lines.js';

/** A diff's lines as text, each marked by its kind (added, removed, …): never read as HTML. */
export function DiffPre({ lines }: { lines: DiffLine[] }) {
  return (
    <pre class="diff">
      {lines.map((line, i) => (
        <span key={i} class={`diff-${line.kind}`}>
          {line.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
