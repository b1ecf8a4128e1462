/**
 * A QR code as inline SVG: the dark modules as unit squares in one path, no style attributes, so
 * the CSP holds. Loaded lazily by qr-code.tsx.
 */
import { encode } from 'uqr';

export function QrCodeSvg({ text, label }: { text: string; label: string }) {
  const { data, size } = encode(text, { ecc: 'M', border: 2 });
  let path = '';
  data.forEach((row, y) => row.forEach((dark, x) => dark && (path += `M${x} ${y}h1v1h-1z`)));
  return (
    <svg class="qr-code" role="img" aria-label={label} viewBox={`0 0 ${size} ${size}`} shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
