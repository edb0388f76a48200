import type { z } from 'zod';
import { defOf, isOptionalField, maxLengthOf, unwrap } from './schemas.js';

/**
 * Hostile variants of one valid input, derived from the input and its zod schema: every string
 * with a NUL, with unpaired surrogates, over-long, empty and named like an `Object.prototype`
 * member; every number huge, negative, fractional; every value of every other JSON type; every
 * object with prototype-named and unknown keys, with each field left out, with each optional field
 * it lacks added with a hostile value. One change per variant, so a failure names its cause.
 */
export interface Variant {
  /** What was changed, e.g. `content.questions.2.text: NUL`. */
  label: string;
  /** The top-level field the change is under (a path parameter, a query field, a body field). */
  field: string | undefined;
  input: Record<string, unknown>;
}

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'] as const;

/** Strings far past any limit; a URL carries less (Node refuses request heads over 16 KiB). */
const OVERLONG_IN_BODY = 100_000;
const OVERLONG_IN_URL = 4_000;

type Path = (string | number)[];
type Json = unknown;

export function hostileVariants(
  base: Record<string, unknown>,
  schema: z.core.$ZodType,
  options: { inUrl: (field: string) => boolean },
): Variant[] {
  const variants: Variant[] = [];
  const add = (path: Path, what: string, value: Json) => {
    variants.push({
      label: `${path.join('.') || '(input)'}: ${what}`,
      field: path[0] as string,
      input: replaceAt(base, path, value),
    });
  };
  const drop = (path: Path) => {
    variants.push({ label: `${path.join('.')}: left out`, field: path[0] as string, input: removeAt(base, path) });
  };
  const addKey = (path: Path, key: string, value: Json, what: string) => {
    const at = [...path, key];
    variants.push({
      label: `${at.join('.')}: ${what}`,
      field: (path[0] ?? key) as string,
      input: setKey(base, path, key, value),
    });
  };

  const visit = (value: Json, path: Path, nodeSchema: z.core.$ZodType | undefined) => {
    const field = path[0] as string | undefined;
    const overlong = field !== undefined && options.inUrl(field) ? OVERLONG_IN_URL : OVERLONG_IN_BODY;
    if (path.length > 0) {
      for (const [what, other] of wrongTypes(value)) add(path, what, other);
    }
    if (typeof value === 'string') {
      const max = nodeSchema ? maxLengthOf(nodeSchema) : undefined;
      add(path, 'NUL', `${value}\u0000`);
      add(path, 'NUL alone', '\u0000');
      add(path, 'lone high surrogate', `\ud800${value}`);
      add(path, 'lone low surrogate', `${value}\udc00`);
      add(path, 'over-long', 'x'.repeat(Math.max(overlong, (max ?? 0) + 1)));
      if (max !== undefined && max + 1 < overlong) add(path, `one past maxLength ${max}`, 'x'.repeat(max + 1));
      add(path, 'empty', '');
      for (const name of PROTOTYPE_NAMES) add(path, `named ${name}`, name);
    } else if (typeof value === 'number') {
      for (const [what, other] of [
        ['huge', 1e308],
        ['huge negative', -1e308],
        ['negative', -1],
        ['fractional', 0.5],
        ['zero', 0],
        ['past 2^53', 2 ** 53 + 2],
      ] as const) {
        add(path, what, other);
      }
    } else if (Array.isArray(value)) {
      add(path, 'empty array', []);
      const element = nodeSchema ? elementSchema(nodeSchema) : undefined;
      for (const [index, item] of value.entries()) visit(item, [...path, index], element);
    } else if (value !== null && typeof value === 'object') {
      const shape = nodeSchema ? objectShape(nodeSchema, value) : undefined;
      for (const name of PROTOTYPE_NAMES) {
        addKey(path, name, 1, 'prototype-named key');
        addKey(path, name, {}, 'prototype-named key holding an object');
      }
      addKey(path, 'unknownField', 'x', 'unknown key');
      for (const [key, item] of Object.entries(value)) {
        if (path.length > 0 || !options.inUrl(key)) drop([...path, key]);
        visit(item, [...path, key], shape?.[key]);
      }
      for (const [key, fieldSchema] of Object.entries(shape ?? {})) {
        if (key in (value as object) || !isOptionalField(fieldSchema)) continue;
        for (const [what, other] of [
          ['NUL', '\u0000'],
          ['lone surrogate', '\ud800'],
          ['huge number', 1e308],
          ['null', null],
          ['an object', {}],
          ['named __proto__', '__proto__'],
        ] as const) {
          addKey(path, key, other, `absent optional field added as ${what}`);
        }
      }
    }
  };
  visit(base, [], schema);
  return variants;
}

/** Values of every other JSON type than `value`'s. */
function wrongTypes(value: Json): [string, Json][] {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  const all: [string, string, Json][] = [
    ['null', 'null', null],
    ['string', 'a string', 'text'],
    ['number', 'a number', 12],
    ['boolean', 'a boolean', true],
    ['array', 'an array', ['text']],
    ['object', 'an object', { key: 'text' }],
  ];
  return all.filter(([type]) => type !== kind).map(([, what, other]) => [`wrong type: ${what}`, other]);
}

/** The schema of an array's elements, through wrappers. */
function elementSchema(schema: z.core.$ZodType): z.core.$ZodType | undefined {
  const def = defOf(unwrap(schema));
  return def.type === 'array' ? def.element : undefined;
}

/** The fields of the object schema `value` is an instance of (the union member it matches). */
function objectShape(schema: z.core.$ZodType, value: object): Record<string, z.core.$ZodType> | undefined {
  const inner = unwrap(schema);
  const def = defOf(inner);
  if (def.type === 'object') return def.shape;
  if (def.type === 'pipe' && def.in) return objectShape(def.in, value);
  if (def.type === 'union') {
    const member = def.options?.find((option) => (option as z.ZodType).safeParse(value).success) ?? def.options?.[0];
    return member ? objectShape(member, value) : undefined;
  }
  return undefined;
}

/** A deep copy whose own properties may include `__proto__` as a plain key (JSON.stringify writes it). */
function copy(value: Json): Json {
  if (Array.isArray(value)) return value.map(copy);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) define(out, key, copy(item));
    return out;
  }
  return value;
}

function define(target: Record<string, unknown>, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function nodeAt(root: Json, path: Path): Record<string | number, unknown> {
  let node = root as Record<string | number, unknown>;
  for (const key of path) node = node[key] as Record<string | number, unknown>;
  return node;
}

function replaceAt(base: Json, path: Path, value: Json): Record<string, unknown> {
  if (path.length === 0) return value as Record<string, unknown>;
  const out = copy(base);
  const parent = nodeAt(out, path.slice(0, -1));
  define(parent as Record<string, unknown>, String(path.at(-1)), value);
  if (Array.isArray(parent)) parent[path.at(-1) as number] = value;
  return out as Record<string, unknown>;
}

function removeAt(base: Json, path: Path): Record<string, unknown> {
  const out = copy(base);
  const parent = nodeAt(out, path.slice(0, -1));
  if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
  else delete parent[path.at(-1) as string];
  return out as Record<string, unknown>;
}

function setKey(base: Json, path: Path, key: string, value: Json): Record<string, unknown> {
  const out = copy(base);
  define(nodeAt(out, path) as Record<string, unknown>, key, value);
  return out as Record<string, unknown>;
}
