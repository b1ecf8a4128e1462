/**
 * Entry of the Compose editor module (web/editor.html): a bundle of its own, so the sign-in and
 * install pages never wait for CodeMirror and the YAML parser. Importing it defines the custom
 * element <panel-compose-editor> (host.tsx creates it), which renders with this bundle's own
 * copy of Preact. An element, because the bundler keeps a module's side effects but drops the
 * exports of a script nothing imports.
 */
import { render } from 'preact';
import type { Environment, Project } from '../api.ts';
import { ComposeSection } from './compose-section.tsx';
import { COMPOSE_EDITOR_ELEMENT } from './host.tsx';
import './qr-code-element.ts';

export interface ComposeSectionProps {
  project: Project;
  environments: Environment[];
}

export class ComposeEditorElement extends HTMLElement {
  /** Set before the element is attached; read once. */
  props?: ComposeSectionProps;

  connectedCallback(): void {
    if (this.props) render(<ComposeSection {...this.props} />, this);
  }

  disconnectedCallback(): void {
    render(null, this);
  }
}

if (!customElements.get(COMPOSE_EDITOR_ELEMENT)) customElements.define(COMPOSE_EDITOR_ELEMENT, ComposeEditorElement);
