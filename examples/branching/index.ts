/**
 * Branching: draft skip logic from a plain-English instruction, store it on the poll, then walk two
 * respondents through the poll, each answering and asking where to go next.
 *
 *   POLLKIT_BASE_URL=http://127.0.0.1:3000 POLLKIT_API_KEY=pk_… npx -y pnpm@10 --filter @pollkit/example-branching start
 */
import { createClient, type PollkitInput } from '@pollkit/sdk';

const baseUrl = process.env.POLLKIT_BASE_URL;
const apiKey = process.env.POLLKIT_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('Set POLLKIT_BASE_URL (e.g. http://127.0.0.1:3000) and POLLKIT_API_KEY.');
  process.exit(2);
}

const client = createClient({ baseUrl, apiKey });

const poll = await client.polls.create({
  title: 'Weekly check-in',
  content: {
    questions: [
      { id: 'mood', kind: 'scale', text: 'How was your week?', min: 1, max: 5 },
      { id: 'why', kind: 'open_ended', text: 'What went wrong?' },
      { id: 'wins', kind: 'open_ended', text: 'What went well?' },
      {
        id: 'lunch',
        kind: 'multiple_choice',
        text: 'Team lunch on Friday?',
        options: [
          { id: 'yes', label: 'Yes' },
          { id: 'no', label: 'No' },
        ],
      },
    ],
  },
});

// The rules in plain English; the draft comes back checked against the poll (nothing is stored yet).
const draft = await client.polls.branch({
  id: poll.id,
  instruction: 'If Q1 is below 3, skip to Q2; otherwise skip to Q3. If Q2 is answered, skip to Q4.',
});
console.log(`drafted by ${draft.data.source}:`);
for (const rule of draft.data.draftJson.conditions) console.log(' ', JSON.stringify(rule));

await client.polls.update({ id: poll.id, branching: draft.data.draftJson, publish: true });

// Each respondent answers what they are shown, then asks where to go next.
type Answer = Omit<PollkitInput<'responses', 'create'>, 'id' | 'voterId' | 'slideId'>;
async function walk(voterId: string, answers: Record<string, Answer>): Promise<string[]> {
  const path: string[] = [];
  let slideId: string | undefined = poll.content.questions[0]?.id;
  while (slideId) {
    path.push(slideId);
    const answer = answers[slideId];
    if (answer) await client.responses.create({ id: poll.id, voterId, slideId, ...answer });
    const next = await client.polls.nextSlide({ id: poll.id, voterId, afterSlideId: slideId });
    slideId = 'slideId' in next ? next.slideId : undefined;
  }
  return path;
}

const grumpy = await walk('grumpy', { mood: { scaleValue: 2 }, why: { text: 'Too many meetings' } });
const happy = await walk('happy', { mood: { scaleValue: 5 }, wins: { text: 'Shipped it' } });
console.log(`grumpy: ${grumpy.join(' → ')}`);
console.log(`happy:  ${happy.join(' → ')}`);
if (grumpy.join() !== 'mood,why,lunch' || happy.join() !== 'mood,wins,lunch') {
  throw new Error('the respondents did not take the paths the rules describe');
}
