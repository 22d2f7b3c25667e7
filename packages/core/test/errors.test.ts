import { describe, expect, test } from "vitest";
import type { QueryErrorKind } from "../src/index.js";
import {
  ConnectionError,
  ConstraintViolationError,
  DialectNotFoundError,
  NoResultError,
  QueryError,
  queryErrorClass,
  RetryableTransactionError,
  TempestError,
  TooManyResultsError,
  UnsupportedFeatureError,
  ValidationError,
} from "../src/index.js";

function queryError(Class: typeof QueryError, kind: QueryErrorKind): QueryError {
  return new Class({
    message: "boom",
    sql: "SELECT 1",
    params: "[redacted]",
    kind,
    driverCode: "X",
    constraint: "c",
    cause: new Error("driver"),
  });
}

describe("stable names and codes", () => {
  test.each([
    [new TempestError("x"), "TempestError", "TEMPEST_ERROR"],
    [new ValidationError("x"), "ValidationError", "VALIDATION_ERROR"],
    [new UnsupportedFeatureError("D", "f", "h"), "UnsupportedFeatureError", "UNSUPPORTED_FEATURE"],
    [new NoResultError("x"), "NoResultError", "NO_RESULT"],
    [new TooManyResultsError(2), "TooManyResultsError", "TOO_MANY_RESULTS"],
    [new DialectNotFoundError("x"), "DialectNotFoundError", "DIALECT_NOT_FOUND"],
    [queryError(QueryError, "other"), "QueryError", "QUERY_ERROR"],
    [queryError(RetryableTransactionError, "deadlock"), "RetryableTransactionError", "RETRYABLE_TRANSACTION"],
    [queryError(ConstraintViolationError, "unique-violation"), "ConstraintViolationError", "CONSTRAINT_VIOLATION"],
    [queryError(ConnectionError, "connection"), "ConnectionError", "CONNECTION_ERROR"],
  ] as const)("%s", (error, name, code) => {
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(TempestError);
    expect(String(error)).toMatch(new RegExp(`^${name}: `));
  });
});

describe("isInstance", () => {
  test("follows the subclass relation", () => {
    const retryable = queryError(RetryableTransactionError, "deadlock");
    expect(RetryableTransactionError.isInstance(retryable)).toBe(true);
    expect(QueryError.isInstance(retryable)).toBe(true);
    expect(TempestError.isInstance(retryable)).toBe(true);
    expect(ConstraintViolationError.isInstance(retryable)).toBe(false);
    expect(ValidationError.isInstance(retryable)).toBe(false);

    const plain = queryError(QueryError, "deadlock");
    expect(QueryError.isInstance(plain)).toBe(true);
    expect(RetryableTransactionError.isInstance(plain)).toBe(false);

    const validation = new ValidationError("x");
    expect(ValidationError.isInstance(validation)).toBe(true);
    expect(TempestError.isInstance(validation)).toBe(true);
    expect(QueryError.isInstance(validation)).toBe(false);
    expect(UnsupportedFeatureError.isInstance(validation)).toBe(false);
  });

  test("refuses non-errors and foreign errors", () => {
    for (const value of [null, undefined, "VALIDATION_ERROR", { code: "VALIDATION_ERROR" }, new Error("x"), new TypeError("x")]) {
      expect(ValidationError.isInstance(value)).toBe(false);
      expect(TempestError.isInstance(value)).toBe(false);
    }
  });

  test("survives a second copy of the package in the same process", async () => {
    // A query string makes the module loader evaluate errors.ts again: a distinct set of classes.
    const secondCopy = "../src/errors.ts?second-copy";
    const copy = (await import(secondCopy)) as typeof import("../src/errors.js");
    expect(copy.QueryError).not.toBe(QueryError);

    const foreignRetryable = new copy.RetryableTransactionError({ message: "m", sql: "s", params: [], kind: "deadlock", cause: undefined });
    expect(foreignRetryable).not.toBeInstanceOf(QueryError);
    expect(RetryableTransactionError.isInstance(foreignRetryable)).toBe(true);
    expect(QueryError.isInstance(foreignRetryable)).toBe(true);
    expect(TempestError.isInstance(foreignRetryable)).toBe(true);
    expect(ConnectionError.isInstance(foreignRetryable)).toBe(false);

    const foreignValidation = new copy.ValidationError("x");
    expect(ValidationError.isInstance(foreignValidation)).toBe(true);
    expect(TempestError.isInstance(foreignValidation)).toBe(true);
    expect(QueryError.isInstance(foreignValidation)).toBe(false);

    // And the other way round.
    expect(copy.QueryError.isInstance(queryError(ConstraintViolationError, "unique-violation"))).toBe(true);
    expect(copy.ValidationError.isInstance(new ValidationError("x"))).toBe(true);
  });

  test("narrows the type", () => {
    const error: unknown = new UnsupportedFeatureError("SQLite", "row locks", "use a transaction");
    if (!UnsupportedFeatureError.isInstance(error)) throw new Error("not narrowed");
    expect([error.dialect, error.feature, error.hint]).toEqual(["SQLite", "row locks", "use a transaction"]);
  });
});

describe("structured fields", () => {
  test("QueryError carries sql, params, kind, driver code, constraint and cause", () => {
    const cause = new Error("driver");
    const error = new QueryError({
      message: "PostgreSQL: nope",
      sql: "SELECT $1",
      params: [1],
      kind: "syntax",
      driverCode: "42601",
      cause,
    });
    expect(error.message).toBe("PostgreSQL: nope\n  sql: SELECT $1");
    expect(error).toMatchObject({ sql: "SELECT $1", params: [1], kind: "syntax", driverCode: "42601", constraint: undefined, cause });
    expect(error.retryable).toBe(false);
  });

  test("retryable kinds and the class each kind maps to", () => {
    const cases: [QueryErrorKind, typeof QueryError, boolean][] = [
      ["deadlock", RetryableTransactionError, true],
      ["serialization", RetryableTransactionError, true],
      ["lock-timeout", RetryableTransactionError, true],
      ["lock-not-available", QueryError, false],
      ["unique-violation", ConstraintViolationError, false],
      ["foreign-key-violation", ConstraintViolationError, false],
      ["not-null-violation", ConstraintViolationError, false],
      ["check-violation", ConstraintViolationError, false],
      ["connection", ConnectionError, false],
      ["statement-timeout", QueryError, false],
      ["syntax", QueryError, false],
      ["other", QueryError, false],
    ];
    for (const [kind, Class, retryable] of cases) {
      expect(queryErrorClass(kind), kind).toBe(Class);
      expect(queryError(queryErrorClass(kind), kind).retryable, kind).toBe(retryable);
    }
  });

  test("UnsupportedFeatureError and TooManyResultsError fields", () => {
    const error = new UnsupportedFeatureError("MySQL", "LIMIT inside an IN (SELECT ...) subquery", "Claim in two steps.");
    expect(error.message).toBe("MySQL does not support LIMIT inside an IN (SELECT ...) subquery. Claim in two steps.");
    expect(new TooManyResultsError(3)).toMatchObject({ count: 3, message: "Expected at most one row, got 3" });
  });
});
