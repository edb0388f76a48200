import { fileURLToPath } from 'node:url';
import { DeckDocument } from '@pollkit/contracts';
import { z } from 'zod';

export const DECK_SCHEMA_PATH = fileURLToPath(new URL('../deck.schema.json', import.meta.url));

/**
 * docs/deck.schema.json: the JSON Schema of Pollkit's deck file (`GET /polls/{id}/deck`), from the
 * contract's `DeckDocument`, for editors and CI checks of decks kept in git. The input side: what a
 * file may say, defaults optional.
 */
export function deckSchemaJson(): string {
  const schema = z.toJSONSchema(DeckDocument, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  const document = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Pollkit deck',
    ...schema,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
