import type { Attachment } from '@tether/shared-protocol';
import { isImageType } from '@tether/shared-protocol';
import { useContext, useEffect, useState } from 'preact/hooks';
import { AttachmentSource } from './attachment-context.js';

/** A byte count as a person reads it. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${Math.round(bytes / 1000)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/**
 * A message's attachments: a photo as a thumbnail (its bytes read over the sealed channel into a
 * blob: URL, set as an <img> source, never as HTML), a text file as its name and size. Names are
 * text nodes: whatever a file is called is shown as written.
 */
export function AttachmentList({ items }: { items: readonly Attachment[] }) {
  return (
    <ul class="attachments" aria-label="Attachments">
      {items.map((a) => (
        <li key={a.id} data-attachment={a.name}>
          {isImageType(a.type) ? <Thumbnail attachment={a} /> : <span class="file-chip">📎 {a.name}</span>}
          <span class="attachment-size">{sizeText(a.size)}</span>
        </li>
      ))}
    </ul>
  );
}

function Thumbnail({ attachment }: { attachment: Attachment }) {
  const source = useContext(AttachmentSource);
  const [url, setUrl] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (!source) return;
    let current = true;
    void source.reader.url(source.sessionId, attachment).then((r) => {
      if (!current) return;
      if (r.ok) setUrl(r.value);
      else setError(r.error.message);
    });
    return () => {
      current = false;
    };
  }, [source, attachment.id]);
  if (url) return <img class="thumbnail" src={url} alt={attachment.name} />;
  return <span class="file-chip">{error ? `🖼 ${attachment.name} (not loaded)` : `🖼 ${attachment.name}…`}</span>;
}
