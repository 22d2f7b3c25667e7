import type { SqlCompiler } from "tempest-db-js/dialect";
import { expectTypeOf, test } from "vitest";
import type { SqliteCompiler } from "../src/sqlite-compiler.js";

test("the compiler's public members are the base compiler's: each hook it overrides stays protected", () => {
  expectTypeOf<keyof SqliteCompiler>().toEqualTypeOf<keyof SqlCompiler>();
});
