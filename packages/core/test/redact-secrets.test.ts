import { inspect } from "node:util";
import { describe, expect, test } from "vitest";
import { redactedCopy, redactText, secretsOf } from "../src/engine/redact-secrets.js";
import { createEngine, redactUrl } from "../src/index.js";
import { testDialect } from "./support/test-dialect.js";

const T = "tok-S3CRET-value";

describe("redactText", () => {
  test.each([
    ["pg type error", `invalid input syntax for type integer: "${T}"`, 'invalid input syntax for type integer: "[redacted]"'],
    ["pg unique detail", `Key (email)=(${T}) already exists.`, "Key (email)=([redacted]) already exists."],
    ["pg composite key", `Key (consumer, lower(key))=(a, ${T}) already exists.`, "Key (consumer, lower(key))=([redacted]) already exists."],
    [
      "pg fk detail",
      `Key (owner_id)=(${T}) is not present in table "owners".`,
      'Key (owner_id)=([redacted]) is not present in table "owners".',
    ],
    ["pg failing row", `Failing row contains (1, null, ${T}, (x)).`, "Failing row contains ([redacted])."],
    ["pg portal parameter", `unnamed portal parameter $1 = '${T}'`, "unnamed portal parameter $1 = '[redacted]'"],
    ["pg json", `Token "${T}" is invalid.`, 'Token "[redacted]" is invalid.'],
    ["mysql duplicate", `Duplicate entry '${T}' for key 'label'`, "Duplicate entry '[redacted]' for key 'label'"],
    [
      "mysql bad integer",
      `Incorrect integer value: '${T}' for column \`db\`.\`t\`.\`n\` at row 1`,
      "Incorrect integer value: '[redacted]' for column `db`.`t`.`n` at row 1",
    ],
  ])("%s: the value goes, the words that name the problem stay", (_name, text, expected) => {
    expect(redactText(text, [])).toBe(expected);
  });

  test("every bound string of four characters or more is replaced wherever it stands; identifiers stay", () => {
    const secrets = secretsOf([T, "ab", 42, ["in-list-value"], null]);
    expect(secrets).toEqual([T, "in-list-value"]);
    expect(redactText(`relation "jobs" says ${T} and in-list-value`, secrets)).toBe('relation "jobs" says [redacted] and [redacted]');
  });
});

describe("redactedCopy", () => {
  class DriverError extends Error {
    code = "23505";
    detail = `Key (k)=(${T}) already exists.`;
    where = `unnamed portal parameter $1 = '${T}'`;
    internalQuery = `SELECT '${T}'`;
    position = 7;
  }

  test("keeps the class, codes and numbers; scrubs message, stack and every string, down the cause chain", () => {
    const original = new DriverError(`duplicate ${T}`, { cause: new Error(`inner ${T}`) });
    const copy = redactedCopy(original, [T]) as DriverError & { cause: Error };
    expect(copy).toBeInstanceOf(DriverError);
    expect(copy.code).toBe("23505");
    expect(copy.position).toBe(7);
    expect(copy.detail).toBe("Key (k)=([redacted]) already exists.");
    expect(copy.cause.message).toBe("inner [redacted]");
    expect(inspect(copy, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(T);
    expect(JSON.stringify(copy)).not.toContain(T);
    // The original is left as it was: the copy replaces it, it is not changed.
    expect(original.detail).toContain(T);
  });

  test("cycles, AggregateError lists and objects that are not messages", () => {
    const a = new Error(`a ${T}`) as Error & { self?: unknown; socket?: unknown };
    a.self = a;
    a.socket = new (class Socket {
      secret = T;
    })();
    const copy = redactedCopy(new AggregateError([a], `all ${T}`), [T]) as AggregateError;
    expect(inspect(copy, { depth: Number.POSITIVE_INFINITY, showHidden: true })).not.toContain(T);
    const inner = copy.errors[0] as typeof a;
    expect(inner.self).toBe(inner);
    expect(inner.socket).toBe("[redacted]");
  });
});

describe("engines, sessions and transactions print no password", () => {
  test("util.inspect and JSON.stringify show the URL masked, never the connection", async () => {
    const engine = createEngine(`test://app:${T}@db.example/app?sslpassword=${T}`, { dialect: testDialect() });
    for (const shown of [
      inspect(engine, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
      JSON.stringify(engine),
      inspect(engine.session()),
      String(engine),
    ]) {
      expect(shown).not.toContain(T);
    }
    expect(inspect(engine)).toContain("app:***@db.example");
    expect(redactUrl(`postgresql://u@h/db?password=${T}&x=1`)).toBe("postgresql://u@h/db?password=***&x=1");
    await engine.close();
  });
});
