/**
 * Passed by the statement functions and builder methods to a builder's constructor with a node they
 * have just frozen, so that it is not checked or frozen a second time. Module-private in effect: not
 * exported from the package, so a node from anywhere else is always frozen by the constructor.
 */
export const FROZEN: unique symbol = Symbol("tempest-db-js.frozen-node");
