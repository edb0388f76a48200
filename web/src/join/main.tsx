import { render } from 'preact';
import '../shared/styles.css';
import './join.css';
import { bridgeJoinPage } from '../shared/embed.js';
import { loadMessages, t } from '../shared/i18n.js';
import { JoinApp } from './app.js';
import { JoinController } from './controller.js';

// The language's catalog first: every word on the page comes from it.
await loadMessages();
document.title = t('join.title');

/** `/join` (type a PIN) and `/join/{pin}` (the QR code's address: the PIN filled in). */
const pin = safeDecode(/^\/join\/([^/]+)\/?$/.exec(location.pathname)?.[1] ?? '');
const root = document.getElementById('app');
const controller = new JoinController(pin);
if (root) render(<JoinApp controller={controller} />, root);
// Inside an allowed parent's frame, the parent hears what happens (docs/embedding.md).
bridgeJoinPage(controller);

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
