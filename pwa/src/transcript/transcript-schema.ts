import { ApprovalSchema, AttachmentListSchema, PlanEntrySchema, SessionSummarySchema } from '@tether/shared-protocol';
import * as v from 'valibot';
import type { TranscriptState } from './transcript.js';

/**
 * The shape of a transcript as cached in IndexedDB. What comes back out of the database is
 * decoded with this before it is shown: a cache written by an older app, or damaged, is dropped
 * (and refilled from the host), never trusted.
 */

const Text = v.pipe(v.string(), v.maxLength(2 * 1024 * 1024));
const Seq = v.pipe(v.number(), v.integer(), v.minValue(0));
/** Caches written before items carried their sequence number read as 0 (before everything). */
const ItemSeq = v.optional(Seq, 0);

const ItemSchema = v.variant('kind', [
  v.object({
    kind: v.literal('message'),
    id: v.string(),
    seq: ItemSeq,
    role: v.picklist(['user', 'assistant']),
    text: Text,
    streaming: v.boolean(),
    attachments: v.optional(AttachmentListSchema),
  }),
  v.object({
    kind: v.literal('tool'),
    id: v.string(),
    seq: ItemSeq,
    tool: v.string(),
    title: v.string(),
    input: Text,
    status: v.picklist(['running', 'ok', 'failed']),
    output: Text,
    truncated: v.boolean(),
    exitCode: v.nullable(v.number()),
    // Absent from transcripts cached before agents' tool details: read as none.
    toolKind: v.optional(v.string(), ''),
    diff: v.optional(Text, ''),
    diffTruncated: v.optional(v.boolean(), false),
  }),
  v.object({ kind: v.literal('plan'), id: v.string(), seq: ItemSeq, entries: v.array(PlanEntrySchema) }),
  v.object({ kind: v.literal('approval'), id: v.string(), seq: ItemSeq, approval: ApprovalSchema }),
  v.object({ kind: v.literal('gap'), id: v.string(), seq: ItemSeq, after: Seq, to: Seq }),
  v.object({
    kind: v.literal('notice'),
    id: v.string(),
    seq: ItemSeq,
    level: v.picklist(['info', 'warning', 'error']),
    text: Text,
  }),
  v.object({
    kind: v.literal('run'),
    id: v.string(),
    seq: ItemSeq,
    status: v.picklist(['done', 'interrupted', 'error']),
    error: v.string(),
  }),
]);

export const TranscriptStateSchema = v.object({
  lastSeq: Seq,
  applied: Seq,
  dropped: Seq,
  items: v.array(ItemSchema),
  summary: v.nullable(SessionSummarySchema),
});

/** Compile-time check that the schema and the type agree. */
export type StoredTranscript = v.InferOutput<typeof TranscriptStateSchema>;
const _sameShape: (s: StoredTranscript) => TranscriptState = (s) => s;
void _sameShape;
