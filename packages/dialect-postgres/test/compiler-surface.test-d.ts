import type { SqlCompiler } from "tempest-db-js/dialect";
import { expectTypeOf, test } from "vitest";
import type { PostgresCompiler } from "../src/postgres-compiler.js";

test("the compiler's public members are the base compiler's: each hook it overrides stays protected", () => {
  expectTypeOf<keyof PostgresCompiler>().toEqualTypeOf<keyof SqlCompiler>();
});
