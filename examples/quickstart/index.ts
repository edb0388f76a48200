/**
 * Quickstart: create a poll with one multiple-choice slide, publish it, cast a few votes, read the
 * results and export them as CSV.
 *
 *   POLLKIT_BASE_URL=http://127.0.0.1:3000 POLLKIT_API_KEY=pk_… npx -y pnpm@10 --filter @pollkit/example-quickstart start
 */
import { createClient } from '@pollkit/sdk';

const baseUrl = process.env.POLLKIT_BASE_URL;
const apiKey = process.env.POLLKIT_API_KEY;
if (!baseUrl || !apiKey) {
  console.error('Set POLLKIT_BASE_URL (e.g. http://127.0.0.1:3000) and POLLKIT_API_KEY.');
  process.exit(2);
}

const client = createClient({ baseUrl, apiKey });

try {
  const poll = await client.polls.create({
    title: 'Team lunch',
    content: {
      questions: [
        {
          id: 'lunch',
          kind: 'multiple_choice',
          text: 'Where shall we eat on Friday?',
          options: [
            { id: 'pizza', label: 'Pizza' },
            { id: 'sushi', label: 'Sushi' },
            { id: 'tacos', label: 'Tacos' },
          ],
        },
      ],
    },
  });
  console.log(`created poll ${poll.id} (${poll.status})`);

  const published = await client.polls.update({ id: poll.id, publish: true });
  console.log(`published poll ${published.id} (${published.status})`);

  // voterId is your own identifier for the respondent; the server keeps one vote per voter per slide.
  const ballots = [
    { voterId: 'ada', optionIds: ['sushi'] },
    { voterId: 'grace', optionIds: ['pizza'] },
    { voterId: 'linus', optionIds: ['sushi'] },
  ];
  for (const ballot of ballots) {
    const receipt = await client.votes.cast({ id: poll.id, slideId: 'lunch', ...ballot });
    console.log(`vote ${receipt.id}: ${ballot.voterId} → ${ballot.optionIds.join(', ')}`);
  }

  const results = await client.results.get({ id: poll.id });
  console.log(`results: ${results.totalVoters} voters`);
  for (const slide of results.slides) {
    if (slide.kind !== 'multiple_choice') continue;
    console.log(`  ${slide.text} (${slide.totalAnswers} answers)`);
    for (const option of slide.options) {
      console.log(`    ${option.label.padEnd(6)} ${String(option.count).padStart(2)}  ${option.percentage}%`);
    }
  }

  const csv = await client.results.export({ id: poll.id });
  console.log('export (CSV):');
  console.log(csv.trimEnd());
} catch (error) {
  console.error('quickstart failed:', error);
  process.exit(1);
}
