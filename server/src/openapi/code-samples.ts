/**
 * Each operation's `x-codeSamples`, generated from its contract route: the call a TypeScript user
 * writes with `@pollkit/sdk` first (so an API explorer such as Scalar offers it first), then the same
 * request with curl. The input is an example made from the route's input schema: every required
 * field (and, for a body with none, its first field), with the schema's own example, default,
 * constant or first allowed value, else a plausible value for its name. server/test/system/code-samples.test.ts
 * type-checks every TypeScript sample against the SDK's source.
 */
import { inputInQuery, pathParams, type RouteDefinition } from '@pollkit/contracts';
import { z } from 'zod';
import { requiresParticipantToken } from './contract-router.js';

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** The origin a participant's device (a browser: no environment variables) names: the README's example. */
const BASE_URL = 'https://polls.example.com';
/** A ULID in the shape every resource id has after its prefix (contracts/src/schemas/common.ts). */
const EXAMPLE_ULID = '01JF3Z8Q6M4W9Y2K7T5R0B1C3D';

type JsonSchema = {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  additionalProperties?: JsonSchema | boolean;
};

/**
 * Plausible values for fields the schema gives no example for: by `group.field` first, then by
 * field name (a string, or the value of an enum to show rather than its first).
 */
const valuesByName: Record<string, string> = {
  'keys.name': 'CI deploys',
  'webhooks.url': 'https://example.com/hooks/pollkit',
  'media.url': 'https://images.example.com/team.jpg',
  title: 'Team lunch',
  name: 'Ada',
  text: 'Where shall we eat?',
  voterId: 'user_42',
  optionIds: 'pizza',
  status: 'approved',
  instruction: 'If they answer Yes, skip to the last slide',
  description: 'Production endpoint',
  'themes.name': 'Acme',
  'themes.url': 'https://images.example.com/acme-logo.png',
  alt: 'Acme',
  'themes.primary': '#1d4ed8',
  'themes.background': '#ffffff',
  'themes.text': '#111827',
  language: 'de',
  embedOrigins: 'https://events.example.com',
};

/** Where an example is made: the input's JSON Schema (for its `$defs`) and the route's group. */
interface Context {
  root: JsonSchema;
  group: string;
}

function valueByName(context: Context, field: string): string | undefined {
  return valuesByName[`${context.group}.${field}`] ?? valuesByName[field];
}

/** A value the pattern accepts, for the patterns the contracts use; anything else is a new case to add here. */
function stringForPattern(pattern: string, field: string, context: Context): string {
  const id = /^\^([a-z]+)_\[0-9A-HJKMNP-TV-Z\]\{26\}\$$/.exec(pattern);
  if (id) return `${id[1]}_${EXAMPLE_ULID}`;
  if (pattern === '^[0-9]{6}$' || pattern.startsWith('^(?:[0-9]{6}|lnk_')) return '123456';
  // Slide and option ids (`[A-Za-z0-9_-]+`): the name's plausible value, or a slide id as the README's.
  const candidate = [valueByName(context, field), 'where'].find((value) => value && new RegExp(pattern).test(value));
  if (candidate) return candidate;
  throw new Error(`code-samples.ts: no example for ${field}'s pattern ${pattern}`);
}

function stringExample(schema: JsonSchema, field: string, context: Context): string {
  if (schema.pattern) return stringForPattern(schema.pattern, field, context);
  if (schema.format === 'uri') return valueByName(context, field) ?? 'https://example.com/pollkit';
  if (schema.format === 'date-time') return '2026-01-01T09:00:00Z';
  if (schema.format === 'email') return 'ada@example.com';
  return valueByName(context, field) ?? field;
}

/** `schema` with its `$ref` (to the input's `$defs`) resolved. */
function resolved(schema: JsonSchema, context: Context): JsonSchema {
  if (!schema.$ref) return schema;
  const target = context.root.$defs?.[schema.$ref.replace(/^#\/\$defs\//, '')];
  if (!target) throw new Error(`code-samples.ts: unresolved ${schema.$ref}`);
  return resolved({ ...target, ...schema, $ref: target.$ref }, context);
}

/** An example value of `schema`, the field `field` of the input. */
function exampleOf(given: JsonSchema, context: Context, field: string): unknown {
  const schema = resolved(given, context);
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) {
    const named = valueByName(context, field);
    return named !== undefined && schema.enum.includes(named) ? named : schema.enum[0];
  }
  if (schema.allOf?.length) {
    const merged = schema.allOf.map((part) => exampleOf(part, context, field));
    return Object.assign({}, ...merged.filter((part) => typeof part === 'object'));
  }
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices?.length) {
    const choice = choices.find((option) => option.type !== 'null') ?? choices[0];
    return exampleOf(choice as JsonSchema, context, field);
  }
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return stringExample(schema, field, context);
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'array': {
      const item = schema.items ?? schema.prefixItems?.[0] ?? {};
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => exampleOf(item, context, field));
    }
    case 'object':
      return objectExample(schema, context);
    default:
      return null;
  }
}

/** Every required field of an object. */
function objectExample(schema: JsonSchema, context: Context): Record<string, unknown> {
  const properties = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  return Object.fromEntries(
    Object.keys(properties)
      .filter((name) => required.has(name))
      .map((name) => [name, exampleOf(properties[name] ?? {}, context, name)]),
  );
}

/** The route's input as an example: path parameters, and what travels in the query or body. */
function exampleInput(group: string, route: RouteDefinition): Record<string, unknown> {
  const root = z.toJSONSchema(route.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const context = { root, group };
  const params = new Set(pathParams(route.path));
  const input = exampleOf(root, context, 'input') as Record<string, unknown>;
  const rest = Object.keys(input).filter((name) => !params.has(name));
  // An update with nothing required would be a call that changes nothing: show its first field.
  if (rest.length === 0 && route.method === 'PATCH') {
    const properties = resolved(root, context).properties ?? {};
    const first = Object.keys(properties).find((name) => !params.has(name));
    if (first) input[first] = exampleOf(properties[first] ?? {}, context, first);
  }
  return input;
}

// ---------------------------------------------------------------- TypeScript (the SDK)

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A value as a TypeScript literal, indented for a call's argument. */
function literal(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = value.map((item) => literal(item, `${indent}  `));
    const oneLine = `[${inner.join(', ')}]`;
    return oneLine.length <= 60 && !oneLine.includes('\n')
      ? oneLine
      : `[\n${inner.map((item) => `${indent}  ${item},`).join('\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const inner = entries.map(
      ([key, item]) => `${IDENTIFIER.test(key) ? key : `'${key}'`}: ${literal(item, `${indent}  `)}`,
    );
    const oneLine = `{ ${inner.join(', ')} }`;
    return oneLine.length <= 60 && !oneLine.includes('\n')
      ? oneLine
      : `{\n${inner.map((item) => `${indent}  ${item},`).join('\n')}\n${indent}}`;
  }
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return JSON.stringify(value);
}

/** What one item of a list route's pages is called (`Question` → `question`); `undefined` for any other route. */
function pageItemName(route: RouteDefinition): string | undefined {
  const output = route.output;
  // As the SDK tells a page (sdk/src/core/pagination.ts): an object of `data` and `nextCursor` alone.
  if (!(output instanceof z.ZodObject) || Object.keys(output.shape).sort().join() !== 'data,nextCursor')
    return undefined;
  const data = output.shape.data;
  const id = data instanceof z.ZodArray ? (data.element as z.ZodType).meta()?.id : undefined;
  return typeof id === 'string' && IDENTIFIER.test(id) ? `${id.charAt(0).toLowerCase()}${id.slice(1)}` : 'item';
}

const CLIENT_SETUP = [
  "import { createClient } from '@pollkit/sdk';",
  '',
  '// Reads POLLKIT_API_KEY and POLLKIT_BASE_URL; or pass { apiKey, baseUrl }.',
  'const pollkit = createClient();',
  '',
];

/** The SDK call of a workspace or host route: `client.<group>.<name>(input)`. */
function clientSample(group: string, name: string, route: RouteDefinition, input: Record<string, unknown>): string {
  const args = Object.keys(input).length === 0 ? '' : literal(input);
  const call = `pollkit.${group}.${name}(${args})`;
  const item = pageItemName(route);
  if (route.format === 'sse') {
    return [
      ...CLIENT_SETUP,
      `for await (const event of ${call}) {`,
      '  console.log(event.type, event.data);',
      '}',
    ].join('\n');
  }
  if (item) {
    return [
      ...CLIENT_SETUP,
      '// Every item, page after page (awaiting the call instead gives the first page alone).',
      `for await (const ${item} of ${call}) {`,
      `  console.log(${item});`,
      '}',
    ].join('\n');
  }
  const result =
    route.format === 'file' ? defaultFile(route).variable : route.format === 'svg' ? 'svg' : resultName(route);
  return [...CLIENT_SETUP, `const ${result} = await ${call};`, `console.log(${result});`].join('\n');
}

/** A file route's default download: what a sample calls it, and the name curl saves it as. */
function defaultFile(route: RouteDefinition): { variable: string; saveAs: string } {
  const first = Object.keys(route.files ?? {})[0];
  return first === 'csv' ? { variable: 'csv', saveAs: 'results.csv' } : { variable: 'deck', saveAs: 'deck.json' };
}

/** What a call's result is called: its output schema's name (`Poll` → `poll`), else `result`. */
function resultName(route: RouteDefinition): string {
  const id = route.output.meta()?.id;
  return typeof id === 'string' && IDENTIFIER.test(id) ? `${id.charAt(0).toLowerCase()}${id.slice(1)}` : 'result';
}

const PARTICIPANT_SETUP = [
  "import { joinSession } from '@pollkit/sdk';",
  '',
  '// No API key: the PIN lets a participant in.',
];

/** The participant routes, called through `joinSession` as an audience's device does (sdk/src/live.ts). */
function participantSample(name: string, input: Record<string, unknown>): string {
  const { pin, ...rest } = input;
  const join = `const me = await joinSession(${literal({ baseUrl: BASE_URL, pin, name: 'Ada' })});`;
  switch (name) {
    case 'join':
      return [...PARTICIPANT_SETUP, join, 'console.log(me.participant, me.state);'].join('\n');
    case 'challenge':
      return [
        ...PARTICIPANT_SETUP,
        '// A session with `joinChallenge: "pow"`: joinSession gets a challenge from this route, solves it',
        '// (Web Crypto) and joins with the solution. `solveJoinChallenge` is the solver, for a page of your own.',
        join,
        'console.log(me.participant);',
      ].join('\n');
    case 'events':
      return [
        ...PARTICIPANT_SETUP,
        join,
        'for await (const event of me.events()) {',
        '  console.log(event.type, event.data);',
        '}',
      ].join('\n');
    case 'answer':
      return [
        ...PARTICIPANT_SETUP,
        join,
        `const receipt = await me.answer(${literal(rest)});`,
        'console.log(receipt);',
      ].join('\n');
    case 'advance':
      return [
        ...PARTICIPANT_SETUP,
        join,
        `const progress = await me.advance(${literal(rest.slideId)});`,
        'console.log(progress.state.progress, progress.completion);',
      ].join('\n');
    case 'upvote':
      return [
        ...PARTICIPANT_SETUP,
        join,
        `const question = await me.upvote(${literal(rest.questionId)});`,
        'console.log(question);',
      ].join('\n');
    default:
      throw new Error(`code-samples.ts: no SDK sample for the participant route live.${name} (see sdk/src/live.ts)`);
  }
}

// ---------------------------------------------------------------- curl

/** Safe inside double quotes for a POSIX shell. */
function doubleQuoted(text: string): string {
  return text.replace(/["$`\\]/g, (character) => `\\${character}`);
}

/** Single-quoted for a POSIX shell. */
function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function curlSample(route: RouteDefinition, input: Record<string, unknown>): string {
  const params = new Set(pathParams(route.path));
  const path = route.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(String(input[name])));
  const rest = Object.fromEntries(Object.entries(input).filter(([name]) => !params.has(name)));
  const query = inputInQuery(route.method)
    ? new URLSearchParams(
        Object.entries(rest).map(([name, value]): [string, string] => [
          name,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      ).toString()
    : '';
  // The server from POLLKIT_BASE_URL, as the SDK sample takes it.
  const url = `"$POLLKIT_BASE_URL${doubleQuoted(`/api/v1${path}${query ? `?${query}` : ''}`)}"`;
  const lines = [`curl${route.format === 'sse' ? ' -N' : ''} -X ${route.method} ${url}`];
  if (route.auth === 'workspace' || route.auth === 'host') lines.push('-H "Authorization: Bearer $POLLKIT_API_KEY"');
  if (requiresParticipantToken(route)) lines.push('-H "X-Participant-Token: $PARTICIPANT_TOKEN"');
  if (route.format === 'sse') lines.push("-H 'Accept: text/event-stream'");
  if (!inputInQuery(route.method) && Object.keys(rest).length > 0) {
    lines.push("-H 'Content-Type: application/json'", `-d ${shellQuoted(JSON.stringify(rest))}`);
  }
  if (route.format === 'file') lines.push(`-o ${defaultFile(route).saveAs}`);
  return lines.join(' \\\n  ');
}

/** The operation's samples: the SDK call first, then curl. */
export function codeSamples(group: string, name: string, route: RouteDefinition): CodeSample[] {
  const input = exampleInput(group, route);
  const sdk = route.auth === 'participant' ? participantSample(name, input) : clientSample(group, name, route, input);
  return [
    { lang: 'TypeScript', label: 'Pollkit SDK', source: sdk },
    { lang: 'Shell', label: 'curl', source: curlSample(route, input) },
  ];
}
