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
        <span class="tool-title">{item.title}</span>
      </summary>
      <div class="tool-body">
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
