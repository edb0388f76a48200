/**
 * A self-paced session with the SDK: a poll with skip logic (tea drinkers skip the coffee question),
 * a session that each participant walks at their own pace, joined by its link (no PIN), and two
 * respondents down different paths, each answering or skipping their own slide; then the results.
 *
 *   POLLKIT_BASE_URL=http://127.0.0.1:3000 POLLKIT_API_KEY=pk_… npx -y pnpm@10 --filter @pollkit/example-self-paced start
 */
import { createClient, joinSession, type LiveAnswer, type LiveParticipant } from '@pollkit/sdk';

const baseUrl = process.env.POLLKIT_BASE_URL;
const apiKey = process.env.POLLKIT_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('Set POLLKIT_BASE_URL (e.g. http://127.0.0.1:3000) and POLLKIT_API_KEY.');
  process.exit(2);
}

// 1. The backend (it holds the API key): a poll whose rule sends tea drinkers past the coffee question.
const pollkit = createClient({ baseUrl, apiKey });
const poll = await pollkit.polls.create({
  title: 'Office kitchen',
  content: {
    questions: [
      {
        id: 'drink',
        kind: 'multiple_choice',
        text: 'Tea or coffee?',
        options: [
          { id: 'tea', label: 'Tea' },
          { id: 'coffee', label: 'Coffee' },
        ],
      },
      {
        id: 'coffee',
        kind: 'multiple_choice',
        text: 'How do you take your coffee?',
        options: [
          { id: 'black', label: 'Black' },
          { id: 'milk', label: 'With milk' },
        ],
      },
      {
        id: 'snacks',
        kind: 'multiple_choice',
        text: 'Biscuits or fruit?',
        options: [
          { id: 'biscuits', label: 'Biscuits' },
          { id: 'fruit', label: 'Fruit' },
        ],
      },
      { id: 'wishes', kind: 'open_ended', text: 'Anything else the kitchen needs?' },
    ],
  },
});
await pollkit.polls.update({
  id: poll.id,
  publish: true,
  branching: {
    conditions: [
      {
        id: 'tea-skips-coffee',
        if: { slideId: 'drink', operator: 'equals', value: 'tea' },
        // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
        then: { action: 'skip_to', slideId: 'snacks' },
      },
    ],
  },
});

// 2. A self-paced session without a PIN: the audience joins by its link, which `joinUrl` ends in.
const session = await pollkit.sessions.create({ pollId: poll.id, pace: 'audience', pin: false });
const linkId = /lnk_[\w-]+/.exec(session.joinUrl)?.[0];
if (!linkId || session.pin !== null) throw new Error('expected a join link and no PIN');
console.log(`self-paced session ${session.id}: share ${session.joinUrl}`);
await pollkit.sessions.control({ id: session.id, action: 'start' });

/** An answer to a slide, by the slide's id: the answer field of its kind. */
type Answers = Record<string, Omit<LiveAnswer, 'slideId'>>;

/**
 * One respondent's walk: they answer the slide they stand on, or skip it with `advance` when
 * `answers` has nothing for it; each step says where the skip logic sent them, until they complete.
 */
async function walk(me: LiveParticipant, answers: Answers): Promise<string[]> {
  const name = me.participant.name;
  const path: string[] = [];
  let state = me.state;
  while (state.slide) {
    const slide = state.slide;
    path.push(slide.id);
    console.log(`${name}: "${slide.text}" (${state.progress?.step} of ${state.progress?.of})`);
    const answer = answers[slide.id];
    const progress = answer ? (await me.answer({ ...answer, slideId: slide.id })).progress : await me.advance(slide.id);
    if (!progress) throw new Error('a self-paced answer carries the participant’s progress');
    if (progress.completion) {
      const { answerCount, skippedCount } = progress.completion;
      console.log(`${name}: done, ${answerCount} answered and ${skippedCount} skipped`);
    }
    state = progress.state;
  }
  return path;
}

// 3. Two respondents join by the link (no API key, no PIN), each when it suits them: Tess skips the
// last question, Cole answers everything.
const tess = await joinSession({ baseUrl, pin: linkId, name: 'Tess' });
const tessPath = await walk(tess, { drink: { optionIds: ['tea'] }, snacks: { optionIds: ['fruit'] } });
const cole = await joinSession({ baseUrl, pin: linkId, name: 'Cole' });
const colePath = await walk(cole, {
  drink: { optionIds: ['coffee'] },
  coffee: { optionIds: ['milk'] },
  snacks: { optionIds: ['biscuits'] },
  wishes: { text: 'A second kettle' },
});
console.log(`Tess: ${tessPath.join(' → ')}`);
console.log(`Cole: ${colePath.join(' → ')}`);
if (tessPath.join() !== 'drink,snacks,wishes' || colePath.join() !== 'drink,coffee,snacks,wishes') {
  throw new Error('the respondents did not take the paths the rule describes');
}

// 4. The host ends the session; its answers are the poll's, as a presenter-paced session's are.
const ended = await pollkit.sessions.control({ id: session.id, action: 'end' });
console.log(`${ended.completedCount} of ${ended.participantCount} completed`);
const results = await pollkit.results.get({ id: poll.id });
for (const slide of results.slides) {
  if (slide.kind === 'multiple_choice') {
    console.log(`${slide.text} ${slide.options.map((option) => `${option.label} ${option.count}`).join(', ')}`);
  }
}
