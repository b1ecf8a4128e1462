/**
 * A QR code (the TOTP otpauth URI): <panel-qr-code>, defined by the lazily loaded editor module
 * (compose/qr-code-element.ts) so the encoder stays out of the first page's script budget.
 */
import { createElement } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { loadComposeEditor } from './compose/host.tsx';

export function QrCode({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  useEffect(() => {
    loadComposeEditor().then(
      () => setState('ready'),
      () => setState('failed'),
    );
  }, []);
  if (state === 'failed') return <p class="muted">The QR code could not be shown; type the secret into your app instead.</p>;
  if (state === 'loading') return <p class="muted">Drawing the QR code…</p>;
  return createElement('panel-qr-code', { text, label });
}
