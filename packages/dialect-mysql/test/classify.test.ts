import { describe, expect, it } from "vitest";
import { classifyMysqlError } from "../src/index.js";

/**
 * The errors MariaDB 10.11 produces are classified in errors.test.ts from the real server. These
 * are the shapes mysql2 gives for what this machine cannot produce: MySQL 8's own error numbers and
 * network failures.
 */
describe("classifyMysqlError", () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    [
      "values that do not match a prepared statement's placeholders",
      { errno: 1210, code: "ER_WRONG_ARGUMENTS", message: "Incorrect arguments to mysqld_stmt_execute" },
      { kind: "syntax", driverCode: "ER_WRONG_ARGUMENTS" },
    ],
    [
      "MySQL NOWAIT",
      {
        errno: 3572,
        code: "ER_LOCK_NOWAIT",
        message: "Statement aborted because lock(s) could not be acquired immediately and NOWAIT is set.",
      },
      { kind: "lock-not-available" },
    ],
    [
      "MySQL check",
      { errno: 3819, code: "ER_CHECK_CONSTRAINT_VIOLATED", message: "Check constraint 'amount_positive' is violated." },
      { kind: "check-violation", constraint: "amount_positive" },
    ],
    [
      "MySQL max_execution_time",
      { errno: 3024, code: "ER_QUERY_TIMEOUT", message: "Query execution was interrupted, maximum statement execution time exceeded" },
      { kind: "statement-timeout" },
    ],
    [
      "MySQL 8 duplicate key (table-qualified key name)",
      { errno: 1062, code: "ER_DUP_ENTRY", message: "Duplicate entry 'alice@example.com' for key 'users.users_email'" },
      { kind: "unique-violation", constraint: "users_email", message: "Duplicate entry '[redacted]' for key 'users.users_email'" },
    ],
    [
      "MariaDB 11 snapshot isolation",
      { errno: 1020, code: "ER_CHECKREAD", message: "Record has changed since last read in table 't'" },
      { kind: "serialization" },
    ],
    [
      "socket closed by the server",
      { code: "PROTOCOL_CONNECTION_LOST", fatal: true, message: "Connection lost: The server closed the connection." },
      { kind: "connection" },
    ],
    ["server unreachable", { code: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:3307" }, { kind: "connection" }],
    ["server gone away", { errno: 2006, message: "MySQL server has gone away" }, { kind: "connection", driverCode: "2006" }],
  ];

  for (const [name, error, expected] of cases) {
    it(name, () => {
      expect(classifyMysqlError(Object.assign(new Error(String(error.message)), error))).toMatchObject(expected);
    });
  }

  it("keeps the value out of conversion errors however it is quoted", () => {
    const { message } = classifyMysqlError(
      Object.assign(new Error("Incorrect integer value: 'it's a ' for column secret' for column `t`.`n` at row 1"), { errno: 1366 }),
    );
    expect(message).toBe("Incorrect integer value: '[redacted]' for column `t`.`n` at row 1");
  });
});
