import { UNTRUSTED_TEXT_KEYWORD } from '@pollkit/contracts';
import type { JsonSchema } from './json-schemas.js';

/**
 * Where an output holds untrusted text (contracts' `untrustedText()`: what participants wrote, what a
 * webhook receiver answered), as a tree of property names read once from the output's JSON Schema:
 * `*` stands for any array item or record value. A marked node covers every string below it.
 */
export interface UntrustedPaths {
  marked: boolean;
  children: Map<string, UntrustedPaths>;
}

const ANY = '*';
const MAX_DEPTH = 32;

/**
 * The untrusted paths of an output schema, or undefined when it holds none (most routes: nothing to
 * walk at call time). Union branches share their node: a field marked in one branch is marked in all,
 * which can only over-mark.
 */
export function untrustedPathsOf(schema: JsonSchema): UntrustedPaths | undefined {
  const definitions = (schema.definitions ?? {}) as Record<string, JsonSchema>;
  const root = newNode();
  // A schema reached again at the same node adds nothing: it also stops a recursive schema.
  const seen = new Map<JsonSchema, Set<UntrustedPaths>>();

  const visit = (node: JsonSchema | undefined, at: UntrustedPaths, depth = 0): void => {
    // A recursive schema would grow the tree forever; outputs are far shallower than this.
    if (!node || typeof node !== 'object' || depth > MAX_DEPTH) return;
    const visited = seen.get(node) ?? new Set();
    if (visited.has(at)) return;
    visited.add(at);
    seen.set(node, visited);
    if (node[UNTRUSTED_TEXT_KEYWORD] === true) at.marked = true;
    const ref = typeof node.$ref === 'string' ? node.$ref.replace(/^#\/definitions\//, '') : undefined;
    if (ref !== undefined) visit(definitions[ref], at, depth);
    for (const keyword of ['anyOf', 'oneOf', 'allOf'] as const) {
      for (const branch of (node[keyword] ?? []) as JsonSchema[]) visit(branch, at, depth);
    }
    for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, JsonSchema>)) {
      visit(property, childOf(at, name), depth + 1);
    }
    const items = node.items as JsonSchema | JsonSchema[] | undefined;
    for (const item of Array.isArray(items) ? items : items ? [items] : []) visit(item, childOf(at, ANY), depth + 1);
    if (typeof node.additionalProperties === 'object') {
      visit(node.additionalProperties as JsonSchema, childOf(at, ANY), depth + 1);
    }
  };
  visit(schema, root);
  return prune(root) ? root : undefined;
}

/**
 * The JSON Pointers (RFC 6901) of the untrusted strings in `value`, in document order. Only the
 * branches that can hold one are walked.
 */
export function untrustedPointers(value: unknown, paths: UntrustedPaths): string[] {
  const found: string[] = [];
  const walk = (at: unknown, node: UntrustedPaths, pointer: string): void => {
    if (node.marked) {
      collectStrings(at, pointer, found);
      return;
    }
    if (Array.isArray(at)) {
      const items = node.children.get(ANY);
      if (items) for (const [index, item] of at.entries()) walk(item, items, `${pointer}/${index}`);
      return;
    }
    if (at === null || typeof at !== 'object') return;
    const any = node.children.get(ANY);
    for (const [key, child] of Object.entries(at)) {
      const next = node.children.get(key) ?? any;
      if (next) walk(child, next, `${pointer}/${escapePointerToken(key)}`);
    }
  };
  walk(value, paths, '');
  return found;
}

/** `/items/3/text` -> `/items/*\/text`: where in the output, whichever item. */
export function pointerPattern(pointer: string): string {
  return pointer.replace(/\/\d+(?=\/|$)/g, '/*');
}

function collectStrings(at: unknown, pointer: string, found: string[]): void {
  if (typeof at === 'string') found.push(pointer);
  else if (Array.isArray(at)) {
    for (const [index, item] of at.entries()) collectStrings(item, `${pointer}/${index}`, found);
  } else if (at !== null && typeof at === 'object') {
    for (const [key, child] of Object.entries(at))
      collectStrings(child, `${pointer}/${escapePointerToken(key)}`, found);
  }
}

function escapePointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function newNode(): UntrustedPaths {
  return { marked: false, children: new Map() };
}

function childOf(node: UntrustedPaths, key: string): UntrustedPaths {
  let child = node.children.get(key);
  if (!child) {
    child = newNode();
    node.children.set(key, child);
  }
  return child;
}

/** Drops the branches that lead to no marked node; whether any is left. */
function prune(node: UntrustedPaths): boolean {
  if (node.marked) {
    node.children.clear();
    return true;
  }
  for (const [key, child] of node.children) if (!prune(child)) node.children.delete(key);
  return node.children.size > 0;
}
