/**
 * A live session with the SDK: the backend creates a session from a published poll, a presenter
 * device drives it with the host token (no API key), two participants join by PIN, follow the
 * slides on their event streams and answer; the quiz's leaderboard comes with the results.
 *
 *   POLLKIT_BASE_URL=http://127.0.0.1:3000 POLLKIT_API_KEY=pk_… npx -y pnpm@10 --filter @pollkit/example-live-session start
 */
import { createClient, joinSession, type LiveParticipant, presenterSession } from '@pollkit/sdk';

const baseUrl = process.env.POLLKIT_BASE_URL;
const apiKey = process.env.POLLKIT_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('Set POLLKIT_BASE_URL (e.g. http://127.0.0.1:3000) and POLLKIT_API_KEY.');
  process.exit(2);
}

// 1. The backend (it holds the API key): a published poll and a session of it.
const pollkit = createClient({ baseUrl, apiKey });
const poll = await pollkit.polls.create({
  title: 'All-hands',
  content: {
    questions: [
      {
        id: 'mood',
        kind: 'multiple_choice',
        text: 'How was the quarter?',
        options: [
          { id: 'great', label: 'Great' },
          { id: 'fine', label: 'Fine' },
        ],
      },
      {
        id: 'capital',
        kind: 'quiz',
        text: 'Capital of Australia?',
        options: [
          { id: 'sydney', label: 'Sydney' },
          { id: 'canberra', label: 'Canberra' },
        ],
        correctOptionIds: ['canberra'],
        timeLimitSec: 20,
        points: 1000,
        speedBonus: true,
      },
    ],
  },
});
await pollkit.polls.update({ id: poll.id, publish: true });
const session = await pollkit.sessions.create({ pollId: poll.id });
// A presenter-paced session always has a PIN (only a self-paced one created with `pin: false` has none).
const pin = session.pin as string;
console.log(`session ${session.id}: join with PIN ${pin} at ${session.joinUrl}`);

// 2. The presenter's device gets the session id and host token, never the API key.
const presenter = presenterSession({ baseUrl, sessionId: session.id, hostToken: session.hostToken });

// 3. Two participants join by PIN: no API key either.
const ada = await joinSession({ baseUrl, pin, name: 'Ada' });
const grace = await joinSession({ baseUrl, pin, name: 'Grace' });

/** A participant's side: answer each slide as it arrives; print the quiz results; stop at the end. */
async function play(me: LiveParticipant, choose: Record<string, string>): Promise<void> {
  for await (const event of me.events()) {
    if (event.type === 'slide' && event.data.slide && !event.data.answered) {
      const slide = event.data.slide;
      const optionId = choose[slide.id];
      if (optionId) await me.answer({ slideId: slide.id, optionIds: [optionId] });
    }
    if (event.type === 'results' && event.data.leaderboard) {
      const you = event.data.leaderboard.you;
      console.log(`${me.participant.name}: rank ${you?.rank} with ${you?.score} points`);
    }
    if (event.type === 'ended') return;
  }
}
const players = [play(ada, { mood: 'great', capital: 'canberra' }), play(grace, { mood: 'fine', capital: 'sydney' })];

// 4. The presenter moves through the deck, waiting on its own stream for both answers each time.
// One stream for the whole session: read it through its iterator (leaving a `for await` would close it).
const presenterEvents = presenter.events();
const nextPresenterEvent = presenterEvents[Symbol.asyncIterator]();
async function waitForAnswers(slideId: string, count: number): Promise<void> {
  for (;;) {
    const { value: event, done } = await nextPresenterEvent.next();
    if (done) throw new Error('the presenter stream ended early');
    if (event.type === 'counts' && event.data.slideId === slideId && event.data.answerCount >= count) return;
  }
}
await presenter.control('start');
await waitForAnswers('mood', 2);
await presenter.control('next');
await waitForAnswers('capital', 2);
await presenter.control('showResults');
await presenter.control('end');
await Promise.all(players);
presenterEvents.close();

const results = await pollkit.results.get({ id: poll.id });
const mood = results.slides[0];
if (mood?.kind === 'multiple_choice') {
  console.log(`mood: ${mood.options.map((option) => `${option.label} ${option.count}`).join(', ')}`);
}

// 5. The outcome, for as long as the session is kept: everyone by rank, page after page.
for await (const player of pollkit.sessions.participants({ id: session.id })) {
  console.log(`${player.rank}. ${player.name ?? 'anonymous'}: ${player.score} points, ${player.answerCount} answers`);
}
