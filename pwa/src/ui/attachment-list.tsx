import type { Attachment } from '@tether/shared-protocol';
import { isImageType } from '@tether/shared-protocol';
import { useContext, useEffect, useState } from 'preact/hooks';
import { FileIcon, ImageIcon } from './icons.js';
import { AttachmentSource } from '../attach/attachment-context.js';

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
          {isImageType(a.type) ? (
            <Thumbnail attachment={a} />
          ) : (
            <span class="file-chip">
              <FileIcon /> {a.name}
            </span>
          )}
          <span class="attachment-size">{sizeText(a.size)}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * A photo: read from the computer (the phone keeps none of a transcript's photos). While the
 * computer cannot be reached it says so, and reads the photo once it can.
 */
function Thumbnail({ attachment }: { attachment: Attachment }) {
  const source = useContext(AttachmentSource);
  const [url, setUrl] = useState<string | undefined>();
  const [state, setState] = useState<'loading' | 'unreachable' | 'failed'>('loading');
  const [error, setError] = useState('');
  useEffect(() => {
    if (!source) return;
    const { reader, sessionId } = source;
    let current = true;
    let loaded = false;
    const load = (reachable: boolean) => {
      if (loaded) return;
      if (!reachable) return setState('unreachable');
      setState('loading');
      void reader.url(sessionId, attachment).then((r) => {
        if (!current || loaded) return;
        if (r.ok) {
          loaded = true;
          setUrl(r.value);
        } else if (reader.reachable()) {
          setState('failed');
          setError(r.error.message);
        } else setState('unreachable');
      });
    };
    load(reader.reachable());
    const stop = reader.onReachChange(load);
    return () => {
      current = false;
      stop();
    };
  }, [source, attachment.id]);
  if (url) return <img class="thumbnail" src={url} alt={attachment.name} />;
  return (
    <span class="file-chip" data-attachment-state={state}>
      <ImageIcon /> {attachment.name}
      {state === 'loading'
        ? '…'
        : state === 'unreachable'
          ? ': not on this device; it shows once the computer can be reached'
          : ` (not loaded: ${error})`}
    </span>
  );
}
