import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { type RouteDefinition, requiredScopes, routeEffect, type Scope } from '@pollkit/contracts';
import type { Operation } from '../api/pipeline.js';
import type { WorkspaceCredential } from '../modules/credentials/workspace-credential.js';
import { toolJsonSchema } from './json-schemas.js';
import { type UntrustedPaths, untrustedPathsOf } from './untrusted-text.js';

/** One operation of the contract offered to AI agents as an MCP tool. */
export interface AgentTool {
  /** The tool as `tools/list` describes it. */
  definition: Tool;
  operation: Operation;
  /** Where its output holds untrusted text; undefined when it holds none. */
  untrusted: UntrustedPaths | undefined;
}

/**
 * Whether an operation is a tool: one a workspace credential calls and that answers JSON. Left out:
 * the participant routes (an audience's, each needing a PIN and a participant token, not a
 * credential), event streams, file downloads and the QR image, which are not a result an agent
 * reads. A route added to the contract that fits is a tool without a line here.
 */
export function isAgentOperation(route: RouteDefinition): boolean {
  return (route.auth === 'workspace' || route.auth === 'host') && (route.format ?? 'json') === 'json';
}

/** `polls` + `create` -> `polls_create`: the route-table key, as a tool name MCP allows. */
function toolName(operation: Pick<Operation, 'group' | 'name'>): string {
  return `${operation.group}_${operation.name}`;
}

/**
 * Every agent operation as a tool, described from its route: the summary as title, the description
 * and the scopes it needs as description, the input and output schemas as JSON Schema, and the
 * hints MCP clients use to ask before a call (`readOnlyHint`, `destructiveHint`, …) from its
 * `effect`. Built once, on the first `/mcp` request (making ~60 JSON Schemas takes a moment).
 */
export function agentToolsOf(operations: readonly Operation[]): Map<string, AgentTool> {
  const tools = new Map<string, AgentTool>();
  for (const operation of operations) {
    const { route } = operation;
    if (!isAgentOperation(route)) continue;
    const name = toolName(operation);
    const inputSchema = toolJsonSchema(route.input, 'input');
    // Every route's input is an object (path parameters plus the query or body): a bug otherwise.
    if (!inputSchema) throw new Error(`The input of ${name} is not an object schema`);
    const outputSchema = toolJsonSchema(route.output, 'output');
    const effect = routeEffect(route);
    const definition: Tool = {
      name,
      title: route.summary,
      description: describe(route),
      inputSchema: inputSchema as Tool['inputSchema'],
      ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
      annotations: {
        title: route.summary,
        readOnlyHint: effect === 'reads',
        destructiveHint: effect === 'destroys',
        // Same arguments, same outcome: an update or a delete, not a create or a control action.
        idempotentHint: effect === 'reads' || route.method === 'PATCH' || route.method === 'DELETE',
        openWorldHint: route.reachesOut === true,
      },
    };
    tools.set(name, { definition, operation, untrusted: outputSchema ? untrustedPathsOf(outputSchema) : undefined });
  }
  return tools;
}

/** Whether a credential may call the tool: it holds every scope the route needs, and its plan has it. */
export function toolAllowed(tool: AgentTool, credential: Pick<WorkspaceCredential, 'scopes' | 'plan'>): boolean {
  const { route } = tool.operation;
  if (route.plan === 'enterprise' && credential.plan !== 'enterprise') return false;
  const held = credential.scopes;
  return held === 'all' || requiredScopes(route).every((scope: Scope) => held.has(scope));
}

function describe(route: RouteDefinition): string {
  const scopes = requiredScopes(route);
  const named = scopes.map((scope) => `\`${scope}\``).join(' and ');
  const needs = scopes.length > 0 ? `\n\nNeeds the ${named} scope${scopes.length > 1 ? 's' : ''}.` : '';
  return `${route.description ?? route.summary}${needs} (REST: \`${route.method} /api/v1${route.path}\`.)`;
}
