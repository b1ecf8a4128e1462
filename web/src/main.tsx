/** Entry point of the console bundle (web/index.html loads it as a module script). */
import { render } from 'preact';
import { App, discover } from './app.tsx';

const root = document.getElementById('app')!;
root.replaceChildren();
render(<App firstState={discover()} />, root);
