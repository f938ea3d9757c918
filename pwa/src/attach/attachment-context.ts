import { createContext } from 'preact';
import type { BlobReader } from './blob-reader.js';

/** Where a transcript's attachments are read from: the session and its computer's reader. */
export const AttachmentSource = createContext<{ reader: BlobReader; sessionId: string } | null>(null);
