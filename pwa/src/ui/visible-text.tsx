import type { VisibleSegment } from '@tether/shared-protocol';
import { visibleSegments } from '@tether/shared-protocol';

const MARK_CLASS_NAMES: Record<Extract<VisibleSegment, { kind: 'mark' }>['class'], string> = {
  control: 'a control character',
  bidi: 'a text-direction character',
  'zero-width': 'a zero-width character',
  invisible: 'an invisible character',
  blank: 'a blank that is not a plain space',
  'private-use': 'a private-use character',
  unassigned: 'an unassigned code point',
  surrogate: 'half of a broken character pair',
  mark: 'the mark sign itself',
};

/** Text and marks as text nodes (never markup); a mark is styled so it cannot pass for text typed. */
export function Segments({ segments }: { segments: VisibleSegment[] }) {
  return (
    <>
      {segments.map((s, i) =>
        s.kind === 'text' ? (
          s.text
        ) : (
          <span
            key={i}
            class="hidden-char"
            title={`${MARK_CLASS_NAMES[s.class]} (U+${s.codePoint.toString(16).toUpperCase().padStart(4, '0')})`}
          >
            {s.mark}
          </span>
        ),
      )}
    </>
  );
}

/** Hostile text on one line (a title an agent gave): its hidden characters shown as marks. */
export function VisibleText({ text }: { text: string }) {
  return <Segments segments={visibleSegments(text)} />;
}
