/**
 * What each tag of the OpenAPI document groups, shown as its section's introduction by API
 * explorers (Scalar at /docs). A tag a route names without a description here fails the build of
 * the document (document.ts), so a new group cannot reach the reference unexplained.
 */
export const tagDescriptions: Record<string, string> = {
  polls:
    'Polls: decks of typed slides (multiple choice, quiz, scale, ranking, open-ended, Q&A, content), drafted, ' +
    'published and closed. See docs/polls.md.',
  branching:
    'Skip logic: a poll’s branching rules drafted from plain English, and the next slide a respondent’s answers ' +
    'lead to. See docs/branching.md.',
  votes: 'Votes: a single-slide answer, one per voter and poll. See docs/answers.md.',
  responses: 'Responses: a respondent’s answers to several slides at once. See docs/answers.md.',
  answers: 'Every answer of a poll, for resetting it. See docs/answers.md.',
  respondents:
    'One person’s records across the workspace — by voter id, participant id or respondentId — for access and ' +
    'erasure requests (GDPR, CCPA). See docs/privacy.md.',
  results: 'Aggregated results of a poll, and its answers exported as CSV. See docs/results-and-export.md.',
  questions: 'Q&A: questions the audience asks on a Q&A slide, their moderation and upvotes. See docs/qa.md.',
  media: 'Images fetched from a URL, re-encoded to WebP and re-hosted, for slides. See docs/media.md.',
  sessions:
    'Live sessions run by a presenter: create one for a poll, move it slide by slide, follow it as a stream; ' +
    'a presenter device uses the session’s host token. See docs/live-sessions.md.',
  live: 'The audience of a live session: join by PIN, follow the slides, answer, upvote. See docs/live-sessions.md.',
  keys: 'Workspace API keys: create, list, revoke, rotate with a grace period. See docs/authentication.md.',
  webhooks:
    'Webhook endpoints and their deliveries; the `webhooks` section describes each event Pollkit sends. See ' +
    'docs/webhooks.md.',
  themes:
    'Themes: colours, a logo and a font for the audience page and the presenter screen, kept at WCAG 2.2 AA ' +
    'contrast. See docs/themes.md.',
  workspace:
    'The workspace and credential that make the call (plan, rate limit, scopes), and the defaults of its pages: ' +
    'language, theme, the origins that may embed them. See docs/embedding.md.',
  oauth: 'OAuth 2.0 client credentials: access tokens for Enterprise workspaces. See docs/authentication.md.',
  meta: 'This API’s own description.',
};
