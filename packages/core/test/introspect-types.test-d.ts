import { expectTypeOf, test } from "vitest";
import type { Dialect, Engine, SchemaSnapshot } from "../src/index.js";
import { introspect, modelsSnapshot } from "../src/index.js";
import { Outbound } from "./support/outbound.js";

declare const engine: Engine;
declare const dialect: Dialect;

test("introspect and modelsSnapshot give the one snapshot type", () => {
  expectTypeOf(introspect(engine)).toEqualTypeOf<Promise<SchemaSnapshot>>();
  expectTypeOf(introspect(engine, { tables: ["outbound_messages"] })).toEqualTypeOf<Promise<SchemaSnapshot>>();
  expectTypeOf(modelsSnapshot(engine, [Outbound])).toEqualTypeOf<SchemaSnapshot>();
  expectTypeOf(modelsSnapshot(dialect, [Outbound])).toEqualTypeOf<SchemaSnapshot>();
  // @ts-expect-error a model class, not an instance
  modelsSnapshot(engine, [new Outbound()]);
  // @ts-expect-error table names are strings
  void introspect(engine, { tables: [1] });
  // @ts-expect-error an engine, not a URL
  void introspect("postgresql://app@localhost/app");
});
