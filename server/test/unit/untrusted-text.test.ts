import { untrustedText } from '@pollkit/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolJsonSchema } from '../../src/mcp/json-schemas.js';
import { pointerPattern, untrustedPathsOf, untrustedPointers } from '../../src/mcp/untrusted-text.js';

/**
 * Where an output holds untrusted text (mcp/untrusted-text.ts), read from the JSON Schema a tool
 * carries: arrays, records, unions, named definitions, nulls and recursion. /mcp's own test reads
 * real results; this one covers the shapes those results do not.
 */

const pathsOf = (schema: z.ZodType) => {
  const json = toolJsonSchema(schema, 'output');
  if (!json) throw new Error('not an object schema');
  return untrustedPathsOf(json);
};

describe('untrusted text in an output', () => {
  it('is found in arrays, records, named definitions and union branches, and nowhere else', () => {
    const Answer = z.object({ text: untrustedText(z.string()), label: z.string() }).meta({ id: 'TestAnswer' });
    const schema = z.object({
      title: z.string(),
      answers: z.array(Answer),
      byVoter: z.record(z.string(), Answer),
      item: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('named'), name: untrustedText(z.string().nullable()) }),
        z.object({ kind: z.literal('plain'), note: z.string() }),
      ]),
      payload: untrustedText(z.object({ nested: z.array(z.string()) })),
    });
    const paths = pathsOf(schema);
    expect(paths).toBeDefined();
    const value = {
      title: 'Workspace title',
      answers: [
        { text: 'first', label: 'A' },
        { text: 'second', label: 'B' },
      ],
      byVoter: { 'v/1~x': { text: 'keyed', label: 'C' } },
      item: { kind: 'named', name: null },
      payload: { nested: ['deep', 'deeper'] },
    };
    expect(untrustedPointers(value, paths!)).toEqual([
      '/answers/0/text',
      '/answers/1/text',
      // RFC 6901 escapes: `~` as `~0`, `/` as `~1`.
      '/byVoter/v~11~0x/text',
      '/payload/nested/0',
      '/payload/nested/1',
    ]);
    expect(untrustedPointers({ ...value, item: { kind: 'named', name: 'Eve' } }, paths!)).toContain('/item/name');
    expect(pointerPattern('/answers/12/text')).toBe('/answers/*/text');
  });

  it('is absent from a schema with none, so nothing is walked', () => {
    expect(pathsOf(z.object({ id: z.string(), items: z.array(z.object({ label: z.string() })) }))).toBeUndefined();
  });

  it('stops on a recursive schema', () => {
    interface Node {
      text: string;
      children: Node[];
    }
    const Node: z.ZodType<Node> = z.lazy(() => z.object({ text: untrustedText(z.string()), children: z.array(Node) }));
    const paths = pathsOf(z.object({ root: Node }));
    const value = { root: { text: 'a', children: [{ text: 'b', children: [] }] } };
    expect(untrustedPointers(value, paths!)).toEqual(['/root/text', '/root/children/0/text']);
  });
});
