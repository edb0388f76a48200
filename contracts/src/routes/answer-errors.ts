/** What recording an answer can answer besides the gate's codes: votes and responses alike. */
export const answerErrors = [
  'not_found',
  'validation_failed',
  'already_responded',
  'poll_not_published',
  'poll_closed',
  'content_rejected',
  'poll_full',
  'service_unavailable',
] as const;
