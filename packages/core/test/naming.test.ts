import { describe, expect, test } from "vitest";
import { column, createTable, Model, select, tableMeta, toSnakeCase, ValidationError } from "../src/index.js";
import { Outbound } from "./support/outbound.js";
import { testEngine } from "./support/test-dialect.js";

const engine = testEngine();

describe("toSnakeCase", () => {
  test.each([
    ["idempotencyKey", "idempotency_key"],
    ["nextAttemptAt", "next_attempt_at"],
    ["userID", "user_id"],
    ["HTTPServer", "http_server"],
    ["getHTTPResponseCode", "get_http_response_code"],
    ["id", "id"],
    ["URL", "url"],
    ["already_snake", "already_snake"],
    ["version2Name", "version2_name"],
    ["ID", "id"],
    ["aB", "a_b"],
  ])("%s -> %s", (field, column) => {
    expect(toSnakeCase(field)).toBe(column);
  });
});

describe("model naming", () => {
  test("snake_case maps every field of the guide's model", () => {
    const meta = tableMeta(Outbound);
    expect(meta.name).toBe("outbound_messages");
    expect(meta.columns.map((c) => [c.field, c.name])).toEqual([
      ["id", "id"],
      ["consumer", "consumer"],
      ["idempotencyKey", "idempotency_key"],
      ["status", "status"],
      ["attempts", "attempts"],
      ["nextAttemptAt", "next_attempt_at"],
      ["updatedAt", "updated_at"],
    ]);
    expect(meta.primaryKey.map((c) => c.field)).toEqual(["id"]);
    expect(meta.columns.filter((c) => c.required).map((c) => c.field)).toEqual(["id", "consumer", "status", "nextAttemptAt"]);
    expect(Object.isFrozen(meta)).toBe(true);
    expect(tableMeta(Outbound)).toBe(meta);
  });

  test("without naming, field names are kept", () => {
    class Kept extends Model {
      static tablename = "kept";
      nextAttemptAt = column.datetime();
    }
    expect(engine.compile(select(Kept)).sql).toBe(`SELECT "nextAttemptAt" FROM "kept"`);
    class Preserved extends Model {
      static tablename = "preserved";
      static naming = "preserve";
      userID = column.integer();
    }
    expect(tableMeta(Preserved).columns[0]?.name).toBe("userID");
  });

  test("a per-column .name() wins over the model's naming", () => {
    class Renamed extends Model {
      static tablename = "renamed";
      static naming = "snake_case";
      userID = column.integer().primaryKey().name("uid");
      createdAt = column.datetime().name("CreatedAt");
      httpStatus = column.integer();
    }
    expect(tableMeta(Renamed).columns.map((c) => c.name)).toEqual(["uid", "CreatedAt", "http_status"]);
    expect(engine.compile(select(Renamed).where({ userID: 1 }).orderBy("createdAt")).sql).toBe(
      `SELECT "uid", "CreatedAt", "http_status" FROM "renamed" WHERE "uid" = ? ORDER BY "CreatedAt" ASC NULLS LAST`,
    );
    // The TypeScript field name is still what the builders take.
    expect(() => select(Renamed).where({ uid: 1 } as never)).toThrow(/no field "uid"/);
  });

  test.each([["camelCase"], ["SNAKE_CASE"], ["snake-case"], [""], ["toString"], ["__proto__"]])(
    "static naming = %j is a ValidationError",
    (naming) => {
      class Bad extends Model {
        static tablename = "bad";
        static naming = naming;
        someField = column.text();
      }
      expect(() => select(Bad)).toThrow(ValidationError);
      expect(() => tableMeta(Bad)).toThrow(/Bad\.naming must be one of "snake_case", "preserve"/);
    },
  );

  test("a naming that is not a string is a ValidationError", () => {
    class BadType extends Model {
      static tablename = "bad_type";
      static naming = 1 as unknown as string;
      id = column.integer();
    }
    expect(() => createTable(BadType)).toThrow(ValidationError);
  });

  test("two fields mapping to one column are refused", () => {
    class Clash extends Model {
      static tablename = "clash";
      static naming = "snake_case";
      fooBar = column.text();
      foo_bar = column.text();
    }
    expect(() => tableMeta(Clash)).toThrow(/two fields map to the column "foo_bar"/);
    class ClashByName extends Model {
      static tablename = "clash_by_name";
      a = column.text();
      b = column.text().name("a");
    }
    expect(() => tableMeta(ClashByName)).toThrow(ValidationError);
  });

  test("a model needs a tablename and at least one column; non-column fields are ignored", () => {
    class NoTable extends Model {
      id = column.integer();
    }
    expect(() => select(NoTable as never)).toThrow(/needs a static tablename/);
    class NoColumns extends Model {
      static tablename = "none";
      helper = 1;
    }
    expect(() => select(NoColumns)).toThrow(/declares no columns/);
    class Mixed extends Model {
      static tablename = "mixed";
      id = column.integer();
      helper = "not a column";
    }
    expect(tableMeta(Mixed).columns.map((c) => c.field)).toEqual(["id"]);
    expect(() => select(42 as never)).toThrow(ValidationError);
  });
});
