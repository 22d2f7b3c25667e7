import { expect, it } from "vitest";
import type { Executable } from "../builder/executable.js";
import type { Engine } from "../engine/engine.js";

/** A query case: the rows the query returns, the same JavaScript values on every database. */
export interface RowCase {
  readonly name: string;
  readonly query: () => Executable;
  readonly rows: Record<string, unknown>[];
}

/** One test per case, each comparing the query's rows on `shop.engine` with the case's. */
export function rowCaseTests(shop: { readonly engine: Engine }, cases: readonly RowCase[]): void {
  for (const { name, query, rows } of cases) {
    it(name, async () => {
      expect(await shop.engine.execute(query()).all()).toEqual(rows);
    });
  }
}
