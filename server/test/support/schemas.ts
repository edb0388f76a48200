import type { z } from 'zod';

/**
 * Reading zod 4 schemas as data, for the tests that must cover every route without a case per
 * route: the walk over every string a route accepts, and a valid sample input built from a schema.
 */

type Def = {
  type: string;
  checks?: { _zod: { def: Record<string, unknown> } }[];
  shape?: Record<string, z.core.$ZodType>;
  element?: z.core.$ZodType;
  innerType?: z.core.$ZodType;
  options?: z.core.$ZodType[];
  keyType?: z.core.$ZodType;
  valueType?: z.core.$ZodType;
  in?: z.core.$ZodType;
  left?: z.core.$ZodType;
  right?: z.core.$ZodType;
  items?: z.core.$ZodType[];
  getter?: () => z.core.$ZodType;
  entries?: Record<string, string | number>;
  values?: unknown[];
};

export function defOf(schema: z.core.$ZodType): Def {
  return schema._zod.def as unknown as Def;
}

/** Wrappers that only change whether a value may be absent: their `innerType` is the value's schema. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

/** The schema under optional/default/… wrappers. */
export function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let current = schema;
  for (let def = defOf(current); WRAPPERS.has(def.type) && def.innerType; def = defOf(current)) {
    current = def.innerType;
  }
  return current;
}

/** Whether an object field may be left out. */
export function isOptionalField(schema: z.core.$ZodType): boolean {
  return schema._zod.optin === 'optional';
}

/**
 * Calls `visit` with every string schema reachable in `schema` (object fields, array elements,
 * union members, record keys and values, …) and the dotted path it sits at. Throws on a schema
 * kind it does not know, so a new kind of schema cannot hide strings from the walk.
 */
export function forEachString(
  schema: z.core.$ZodType,
  visit: (path: string, schema: z.core.$ZodType) => void,
  path = '',
  seen = new Set<z.core.$ZodType>(),
): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  const def = defOf(schema);
  const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
  switch (def.type) {
    case 'string':
      visit(path, schema);
      return;
    case 'number':
    case 'int':
    case 'boolean':
    case 'enum':
    case 'literal':
    case 'null':
    case 'undefined':
    case 'never':
      return;
    case 'object':
      for (const [key, field] of Object.entries(def.shape ?? {})) forEachString(field, visit, at(key), seen);
      return;
    case 'array':
      forEachString(def.element!, visit, at('*'), seen);
      return;
    case 'tuple':
      for (const [index, item] of (def.items ?? []).entries()) forEachString(item, visit, at(index), seen);
      return;
    case 'union':
      for (const option of def.options ?? []) forEachString(option, visit, path, seen);
      return;
    case 'intersection':
      forEachString(def.left!, visit, path, seen);
      forEachString(def.right!, visit, path, seen);
      return;
    case 'record':
      forEachString(def.keyType!, visit, at('<key>'), seen);
      forEachString(def.valueType!, visit, at('*'), seen);
      return;
    case 'pipe':
      forEachString(def.in!, visit, path, seen);
      return;
    case 'lazy':
      forEachString(def.getter!(), visit, path, seen);
      return;
  }
  if (WRAPPERS.has(def.type) && def.innerType) {
    forEachString(def.innerType, visit, path, seen);
    return;
  }
  throw new Error(`forEachString: schema kind '${def.type}' at '${path}' is not handled`);
}

/** Whether a string schema carries `check` (compared by identity). */
export function hasCheck(schema: z.core.$ZodType, check: unknown): boolean {
  return (defOf(schema).checks ?? []).includes(check as never);
}

/**
 * Whether a string schema only takes text of a fixed form: a regex or a string format (`z.url()`,
 * `z.email()`, …). Such text is an identifier or an address, compared exactly as sent.
 */
export function hasFormat(schema: z.core.$ZodType): boolean {
  const def = defOf(schema) as Def & { format?: string };
  if (def.format !== undefined) return true;
  return (def.checks ?? []).some((check) => check._zod.def.check === 'string_format');
}

/** The largest length a string schema allows, if it says. */
export function maxLengthOf(schema: z.core.$ZodType): number | undefined {
  for (const check of defOf(unwrap(schema)).checks ?? []) {
    const def = check._zod.def;
    if (def.check === 'max_length' && typeof def.maximum === 'number') return def.maximum;
  }
  return undefined;
}

const NO_SAMPLE = Symbol('no sample');

/**
 * A value `schema` accepts, built from the schema alone: strings are the first of `strings` the
 * string's own schema accepts (so regex-checked ids pick the id of the right kind), numbers the
 * smallest allowed, enums their first value, objects only their required fields (or, failing that, all).
 * Undefined when nothing fitted (a cross-field rule refused every try).
 */
export function sampleOf(schema: z.core.$ZodType, strings: readonly string[]): unknown {
  // Required fields first: an optional one (a list's `cursor`) may hold a value no generic sample
  // can know; the fuzz adds absent optional fields with hostile values anyway.
  for (const fields of ['required', 'all'] as const) {
    const value = sample(schema, strings, fields);
    if (value !== NO_SAMPLE && (schema as z.ZodType).safeParse(value).success) return value;
  }
  return undefined;
}

function sample(schema: z.core.$ZodType, strings: readonly string[], fields: 'all' | 'required'): unknown {
  const def = defOf(schema);
  const fits = (value: unknown) => (schema as z.ZodType).safeParse(value).success;
  switch (def.type) {
    case 'string':
      return strings.find(fits) ?? NO_SAMPLE;
    case 'number':
    case 'int':
      return [1, 0, 5, 10, 60, 100, 1000, -1].find(fits) ?? NO_SAMPLE;
    case 'boolean':
      return true;
    case 'enum':
      return Object.values(def.entries ?? {})[0] ?? NO_SAMPLE;
    case 'literal':
      return def.values?.[0] ?? NO_SAMPLE;
    case 'null':
      return null;
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape ?? {})) {
        if (fields === 'required' && isOptionalField(field)) continue;
        const value = sample(field, strings, fields);
        if (value === NO_SAMPLE) return NO_SAMPLE;
        if (value !== undefined) out[key] = value;
      }
      return out;
    }
    case 'array': {
      const element = sample(def.element!, strings, fields);
      return element === NO_SAMPLE ? NO_SAMPLE : [element];
    }
    case 'union':
      for (const option of def.options ?? []) {
        const value = sample(option, strings, fields);
        if (value !== NO_SAMPLE && fits(value)) return value;
      }
      return NO_SAMPLE;
    case 'record':
      return {};
    case 'pipe':
      return sample(def.in!, strings, fields);
    case 'lazy':
      return sample(def.getter!(), strings, fields);
  }
  if (WRAPPERS.has(def.type) && def.innerType) return sample(def.innerType, strings, fields);
  return NO_SAMPLE;
}
