/** The deck of the branching tests: the one the instruction examples are written against. */
export { exampleDeck as branchingDeck } from '../fixtures/branching/instruction-examples.js';

/** A branching condition, as the API answers and takes it: `to` a slide id, or 'end'. */
export function condition(id: string, slideId: string, operator: string, value: unknown, to: string) {
  return {
    id,
    if: value === undefined ? { slideId, operator } : { slideId, operator, value },
    // biome-ignore lint/suspicious/noThenProperty: `then` is the field name of the rule's action.
    then: to === 'end' ? { action: 'end' } : { action: 'skip_to', slideId: to },
  };
}
