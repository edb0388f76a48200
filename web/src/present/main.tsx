import { render } from 'preact';
import '../shared/styles.css';
import './present.css';
import { bridgePresenterPage } from '../shared/embed.js';
import { loadMessages, t } from '../shared/i18n.js';
import { PresentApp } from './app.js';
import { PresenterController, takeHostToken } from './controller.js';

// The language's catalog first: every word on the screen comes from it.
await loadMessages();
document.title = t('present.title');

/** `/present/{sessionId}#hostToken=…`: the fragment never leaves the browser, so no server log holds the token. */
const sessionId = /^\/present\/([^/]+)\/?$/.exec(location.pathname)?.[1] ?? '';
const root = document.getElementById('app');
const controller = new PresenterController(sessionId, takeHostToken(sessionId));
if (root) render(<PresentApp controller={controller} />, root);
// Inside an allowed parent's frame, the parent hears what happens (docs/embedding.md).
bridgePresenterPage(controller);
