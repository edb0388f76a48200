/**
 * Error handling: every failed call rejects with a `PollkitError`, as the subclass of its family
 * (`NotFoundError`, `ValidationError`, `ConflictError`, `AuthenticationError`, …), carrying the HTTP
 * `status`, the stable `code` from the API's error registry and a `message` for people. Branch on the
 * class for the family and on `code` for the exact reason (a `ConflictError` may be
 * `already_responded` or `poll_closed`). This program provokes four errors on purpose and shows how
 * to tell them apart.
 *
 *   POLLKIT_BASE_URL=http://127.0.0.1:3000 POLLKIT_API_KEY=pk_… npx -y pnpm@10 --filter @pollkit/example-error-handling start
 */
import {
  AuthenticationError,
  ConflictError,
  createClient,
  NotFoundError,
  PollkitError,
  ValidationError,
} from '@pollkit/sdk';

const baseUrl = process.env.POLLKIT_BASE_URL;
const apiKey = process.env.POLLKIT_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('Set POLLKIT_BASE_URL (e.g. http://127.0.0.1:3000) and POLLKIT_API_KEY.');
  process.exit(2);
}

const client = createClient({ baseUrl, apiKey });

/**
 * Runs `call`, which is expected to fail, and hands its PollkitError to `check`. Anything else —
 * success, or an error that is not a PollkitError — is an unexpected outcome and ends the program.
 */
async function expectFailure<E extends PollkitError>(
  label: string,
  call: () => Promise<unknown>,
  check: (error: PollkitError) => error is E,
): Promise<E> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof PollkitError)) throw error;
    console.log(`${label}: ${error.name} ${error.status} ${error.code} — ${error.message}`);
    if (!check(error)) throw new Error(`${label}: did not expect ${error.status} ${error.code}`);
    return error;
  }
  throw new Error(`${label}: the call succeeded, but it should have failed`);
}

try {
  // 404 not_found: the id is well-formed, but no such poll exists in this workspace.
  await expectFailure(
    '404',
    () => client.polls.get({ id: 'poll_00000000000000000000000000' }),
    (error): error is NotFoundError => error instanceof NotFoundError && error.code === 'not_found',
  );

  // 422 validation_failed: ValidationError names each offending field in fieldErrors.
  const invalid = await expectFailure(
    '422',
    () =>
      client.polls.create({
        title: '',
        content: { questions: [{ id: 'q', kind: 'multiple_choice', text: 'Pick one', options: [] }] },
      }),
    (error): error is ValidationError => error instanceof ValidationError && error.code === 'validation_failed',
  );
  for (const [field, messages] of Object.entries(invalid.fieldErrors)) {
    console.log(`  ${field}: ${messages.join('; ')}`);
  }
  if (!invalid.fieldErrors.title) throw new Error('422 without a fieldErrors entry for title');

  // 409 already_responded: one vote per voter per slide, so the second identical vote conflicts.
  const poll = await client.polls.create({
    title: 'Error handling demo',
    content: {
      questions: [
        {
          id: 'colour',
          kind: 'multiple_choice',
          text: 'Favourite colour?',
          options: [
            { id: 'red', label: 'Red' },
            { id: 'blue', label: 'Blue' },
          ],
        },
      ],
    },
  });
  await client.polls.update({ id: poll.id, publish: true });
  const vote = { id: poll.id, slideId: 'colour', voterId: 'ada', optionIds: ['blue'] };
  await client.votes.cast(vote);
  console.log(`first vote by ${vote.voterId} accepted`);
  await expectFailure(
    '409',
    () => client.votes.cast(vote),
    (error): error is ConflictError => error instanceof ConflictError && error.code === 'already_responded',
  );

  // 401: a client with a wrong key; the code says why (`invalid_api_key`, `revoked_api_key`, …).
  const badKeyClient = createClient({ baseUrl, apiKey: `${apiKey}-wrong` });
  await expectFailure(
    '401',
    () => badKeyClient.polls.get({ id: poll.id }),
    (error): error is AuthenticationError => error instanceof AuthenticationError && error.status === 401,
  );

  console.log('every error arrived as expected');
} catch (error) {
  console.error('error-handling example failed:', error);
  process.exit(1);
}
