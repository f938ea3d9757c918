import { encode } from 'uqr';

/**
 * A QR code drawn as SVG elements made by the app (one path of unit squares), never markup from a
 * string: dark on light whatever the theme, with a quiet zone, so a phone's camera reads it off
 * this screen. Lazy with the share screen, the one place that shows one.
 */
export function QrCode({ text, label }: { text: string; label: string }) {
  const { data } = encode(text, { ecc: 'L', border: 2 });
  const size = data.length;
  let path = '';
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return (
    <svg class="qr-code" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
