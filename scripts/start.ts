/**
 * `npm start`: runs `panel serve` from source for a newcomer's trial. Without PANEL_SECRETS it
 * keeps a generated key ring in ./data/secrets.key (mode 0600) and says so; a production install
 * (install.sh) keeps the ring in /etc/panel/panel.env instead, away from the data it protects.
 */
import { join, resolve } from 'node:path';
import { ensureKeyRingFile } from '../src/config.ts';
import { generateKeyRingText } from '../src/crypto/keyring.ts';

if (!process.env.PANEL_SECRETS && !process.env.PANEL_SECRETS_FILE) {
  const file = join(resolve(process.env.PANEL_DATA_DIR ?? './data'), 'secrets.key');
  ensureKeyRingFile(file, () => generateKeyRingText());
  process.env.PANEL_SECRETS_FILE = file;
  console.error(`panel: trial start; the secrets key ring is kept in ${file} (use install.sh for production)`);
}
process.argv = [process.argv[0]!, 'panel', 'serve'];
await import('../src/main.ts');
