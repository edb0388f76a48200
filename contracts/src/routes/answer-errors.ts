/** What recording an answer can answer besides the gate's codes: votes and responses alike. */
export const answerErrors = [
  'not_found',
  'validation_failed',
  'already_responded',
  'poll_not_published',
  'poll_closed',
  'service_unavailable',
] as const;
