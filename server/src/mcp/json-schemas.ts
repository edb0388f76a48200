import { z } from 'zod';

/** A JSON Schema document, as MCP's tool definitions carry one. */
export type JsonSchema = Record<string, unknown>;

/**
 * A route's input or output schema as the JSON Schema of a tool (`inputSchema`, `outputSchema`).
 *
 * Draft 7, because MCP clients validate with Ajv, whose default instance (the official SDK's) knows
 * no later draft. MCP wants an object at the root: a schema the contract names (`.meta({ id })`)
 * comes out as a bare `$ref`, so the root is replaced by the definition it names; a union of
 * objects is given `type: "object"` beside its `anyOf`. Checks JSON Schema cannot say (a custom
 * refinement) are left to the pipeline's validation, which runs on every call.
 */
export function toolJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema | undefined {
  const document = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
    // zod names checks JSON Schema has no format for (`starts_with`, `ulid`, …) as formats; clients'
    // Ajv warns on each unknown one at every tools/list. The `pattern` beside it says the same.
    override: ({ jsonSchema }) => {
      if (typeof jsonSchema.format === 'string' && !STANDARD_FORMATS.has(jsonSchema.format)) delete jsonSchema.format;
    },
  }) as JsonSchema;
  const { $schema, definitions, ...root } = document;
  const definitionMap = (definitions ?? {}) as Record<string, JsonSchema>;
  const ref = typeof root.$ref === 'string' ? root.$ref.replace(/^#\/definitions\//, '') : undefined;
  const body = ref !== undefined && Object.keys(root).length === 1 ? definitionMap[ref] : root;
  if (!body || !isObjectSchema(body, definitionMap)) return undefined;
  return {
    $schema,
    ...body,
    type: 'object',
    ...(definitions ? { definitions } : {}),
  };
}

/** The formats JSON Schema defines, which clients' validators (Ajv with ajv-formats) know. */
const STANDARD_FORMATS: ReadonlySet<string> = new Set([
  'date-time',
  'date',
  'time',
  'duration',
  'email',
  'idn-email',
  'hostname',
  'idn-hostname',
  'ipv4',
  'ipv6',
  'uri',
  'uri-reference',
  'iri',
  'iri-reference',
  'uri-template',
  'uuid',
  'json-pointer',
  'relative-json-pointer',
  'regex',
]);

/** Whether every value the schema accepts is a JSON object. */
function isObjectSchema(schema: JsonSchema, definitions: Record<string, JsonSchema>, depth = 0): boolean {
  if (depth > 8) return false;
  if (schema.type === 'object') return true;
  if (typeof schema.$ref === 'string') {
    const target = definitions[schema.$ref.replace(/^#\/definitions\//, '')];
    return target !== undefined && isObjectSchema(target, definitions, depth + 1);
  }
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  return (
    Array.isArray(branches) && branches.length > 0 && branches.every((b) => isObjectSchema(b, definitions, depth + 1))
  );
}
