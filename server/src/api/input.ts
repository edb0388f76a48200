import { inputInQuery, type RouteDefinition } from '@pollkit/contracts';
import type { z } from 'zod';
import { invalidInput } from '../core/api-error.js';
import type { ApiRequest } from './call.js';

/**
 * Builds, once per route, the function that assembles a request's raw input exactly as the OpenAPI
 * document (and the SDK) describe it: path parameters, plus the query string for GET/DELETE or the
 * JSON body otherwise. Path parameters win over a body field of the same name.
 */
export function inputReader(route: RouteDefinition): (request: ApiRequest) => Record<string, unknown> {
  if (inputInQuery(route.method)) {
    const coerce = queryCoercer(route.input);
    return (request) => ({ ...coerce(request.query), ...request.params });
  }
  return (request) => {
    const body = request.body ?? {};
    if (typeof body !== 'object' || Array.isArray(body)) throw invalidInput('The request body must be a JSON object');
    return { ...body, ...request.params };
  };
}

type Scalar = 'number' | 'boolean';

/** The scalar kind a query field must be converted to from text, looking through optional/default. */
function scalarKind(schema: z.core.$ZodType): Scalar | undefined {
  const def = schema._zod.def as { type: string; innerType?: z.core.$ZodType };
  if (def.type === 'number' || def.type === 'int') return 'number';
  if (def.type === 'boolean') return 'boolean';
  if ((def.type === 'optional' || def.type === 'default' || def.type === 'nullable') && def.innerType) {
    return scalarKind(def.innerType);
  }
  return undefined;
}

/**
 * Query strings carry only text, so numeric and boolean query fields are converted before
 * validation — strictly: `"20"` becomes 20, `"abc"` stays text and fails validation with a clear
 * message, `"true"`/`"false"` become booleans and nothing else does. JSON bodies are never coerced.
 */
function queryCoercer(input: z.core.$ZodType): (query: Record<string, unknown>) => Record<string, unknown> {
  const shape = (input._zod.def as { shape?: Record<string, z.core.$ZodType> }).shape ?? {};
  const conversions = Object.entries(shape)
    .map(([key, schema]) => [key, scalarKind(schema)] as const)
    .filter((entry): entry is readonly [string, Scalar] => entry[1] !== undefined);
  if (conversions.length === 0) return (query) => query;
  return (query) => {
    const out = { ...query };
    for (const [key, kind] of conversions) {
      const value = out[key];
      if (typeof value !== 'string') continue;
      if (kind === 'number' && /^-?\d+(\.\d+)?$/.test(value)) out[key] = Number(value);
      if (kind === 'boolean' && (value === 'true' || value === 'false')) out[key] = value === 'true';
    }
    return out;
  };
}
