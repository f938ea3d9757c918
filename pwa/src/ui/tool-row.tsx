import type { ToolItem } from '../transcript/transcript.js';

const STATUS_LABEL: Record<ToolItem['status'], string> = { running: 'running', ok: 'done', failed: 'failed' };
const STATUS_ICON: Record<ToolItem['status'], string> = { running: '…', ok: '✓', failed: '✕' };

/** A tool call: one collapsed line (tool, summary, status) that opens to its input and output. */
export function ToolRow({ item }: { item: ToolItem }) {
  return (
    <details class="tool" data-tool-id={item.id} data-status={item.status}>
      <summary>
        <span class={`status-${item.status}`} aria-label={STATUS_LABEL[item.status]}>
          {STATUS_ICON[item.status]}
        </span>
        <strong>{item.tool}</strong>
        {item.toolKind && item.toolKind !== item.tool && <span class="tool-kind">{item.toolKind}</span>}
        <span class="tool-title">{item.title}</span>
      </summary>
      <div class="tool-body">
        {item.diff && (
          <>
            <h3>Changes{item.diffTruncated ? ' · cut short' : ''}</h3>
            <DiffView diff={item.diff} />
          </>
        )}
        {item.input && (
          <>
            <h3>Input</h3>
            <pre>{item.input}</pre>
          </>
        )}
        <h3>
          Output
          {item.exitCode !== null ? ` · exit ${item.exitCode}` : ''}
          {item.truncated ? ' · cut short' : ''}
        </h3>
        <pre class="tool-output">{item.status === 'running' ? 'Running…' : item.output || '(no output)'}</pre>
      </div>
    </details>
  );
}

/** A unified diff as text, each line marked added, removed or context by its first character. */
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  return (
    <pre class="tool-diff">
      {lines.map((line, i) => (
        <span key={i} class={diffLineClass(line)}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function diffLineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'diff-file';
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return 'diff-ctx';
}
