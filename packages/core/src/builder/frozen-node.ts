/**
 * Passed by the statement functions and builder methods to a builder's constructor with a statement
 * node they have just made for it alone: nothing else holds it, so the builder freezes it only when it
 * hands it out (toNode(), which the engine and the compiler go through too). A chain of builder calls
 * thus freezes one statement node, not one per call; every clause inside is frozen when it is made.
 * Module-private in effect: not exported from the package, so a node from anywhere else is frozen by
 * the constructor.
 */
export const FRESH: unique symbol = Symbol("tempest-db-js.fresh-node");
