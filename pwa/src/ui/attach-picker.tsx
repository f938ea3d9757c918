import type { OutboxFile } from '../data/records.js';
import { CameraIcon, CloseIcon, PaperclipIcon } from './icons.js';
import { sizeText } from './attachment-list.js';

/** What a file input offers: photos, and the text files the computer takes. */
const ACCEPT = 'image/*,text/plain,text/markdown,text/csv,application/json,.txt,.log,.md,.csv,.json';

interface Props {
  files: readonly OutboxFile[];
  disabled: boolean;
  onPick: (files: File[]) => void;
  onRemove: (index: number) => void;
}

/**
 * The composer's attach controls: take a photo (the camera, where the device has one), choose
 * photos or files, and the files chosen so far, each with a button to take it off.
 */
export function AttachPicker({ files, disabled, onPick, onRemove }: Props) {
  const picked = (input: HTMLInputElement) => {
    onPick([...(input.files ?? [])]);
    input.value = '';
  };
  return (
    <div class="attach-picker">
      <label class={`button${disabled ? ' disabled' : ''}`} title="Take a photo">
        <CameraIcon />
        <span class="visually-hidden">Take a photo</span>
        <input
          type="file"
          accept="image/*"
          capture="environment"
          class="visually-hidden"
          disabled={disabled}
          onChange={(e) => picked(e.currentTarget)}
        />
      </label>
      <label class={`button${disabled ? ' disabled' : ''}`} title="Attach photos or files">
        <PaperclipIcon />
        <span class="visually-hidden">Attach photos or files</span>
        <input
          type="file"
          accept={ACCEPT}
          multiple
          class="visually-hidden"
          data-attach-input
          disabled={disabled}
          onChange={(e) => picked(e.currentTarget)}
        />
      </label>
      {files.length > 0 && (
        <ul class="attachments pending" aria-label="To send">
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`}>
              <span class="file-chip" title={f.name}>
                {f.name}
              </span>
              <span class="attachment-size">{sizeText(f.bytes.length)}</span>
              <button type="button" class="icon-button" onClick={() => onRemove(i)} aria-label={`Remove ${f.name}`}>
                <CloseIcon size={16} />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
