/** Entry point of the console bundle (web/index.html loads it as a module script). */
import { render } from 'preact';
import { App, discover } from './app.tsx';

const root = document.getElementById('app')!;
// Both first questions (installed? signed in?) are answered before anything renders, so the
// first render is the page itself rather than a spinner that is replaced a frame later.
void discover().then((state) => {
  root.replaceChildren();
  render(<App firstState={state} />, root);
});
