/** The deck of the branching tests: the one the instruction examples are written against. */
export { exampleDeck as branchingDeck } from '../../src/modules/branching/instruction-examples.js';
