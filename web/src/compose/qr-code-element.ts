/**
 * <panel-qr-code text="…" label="…">: a QR code as inline SVG (unit squares in one path, no
 * style attributes, so the CSP holds). Defined by the lazily loaded editor module so the QR
 * encoder stays out of the first page's script (web/src/qr-code.tsx creates it).
 */
import { encode } from 'uqr';

export const QR_CODE_ELEMENT = 'panel-qr-code';
const SVG = 'http://www.w3.org/2000/svg';

class QrCodeElement extends HTMLElement {
  connectedCallback(): void {
    const { data, size } = encode(this.getAttribute('text') ?? '', { ecc: 'M', border: 2 });
    let path = '';
    data.forEach((row, y) => row.forEach((dark, x) => dark && (path += `M${x} ${y}h1v1h-1z`)));
    const svg = document.createElementNS(SVG, 'svg');
    const attributes = { class: 'qr-code', role: 'img', 'aria-label': this.getAttribute('label') ?? 'QR code', viewBox: `0 0 ${size} ${size}`, 'shape-rendering': 'crispEdges' };
    for (const [name, value] of Object.entries(attributes)) svg.setAttribute(name, value);
    const background = document.createElementNS(SVG, 'rect');
    background.setAttribute('width', String(size));
    background.setAttribute('height', String(size));
    background.setAttribute('fill', '#fff');
    const modules = document.createElementNS(SVG, 'path');
    modules.setAttribute('d', path);
    modules.setAttribute('fill', '#000');
    svg.append(background, modules);
    this.replaceChildren(svg);
  }
}

if (!customElements.get(QR_CODE_ELEMENT)) customElements.define(QR_CODE_ELEMENT, QrCodeElement);
