/**
 * A QR code (the TOTP otpauth URI). The encoder is a chunk of its own (qr-code-svg.tsx) so it
 * stays out of the first page's script.
 */
import { lazyComponent } from './lazy.tsx';

export const QrCode = lazyComponent(() => import('./qr-code-svg.tsx').then((module) => module.QrCodeSvg), 'the QR code');
