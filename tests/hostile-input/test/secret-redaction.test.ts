import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import fc from "fast-check";
import type { Engine, QueryEvent } from "tempest-db-js";
import { column, createEngine, insert, Model, op, QueryError, select, sql, TempestError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * A random token hunted through everything a failed statement leaves behind: the error's message and
 * stack, util.inspect of it (every property, hidden ones and the whole cause chain), JSON.stringify
 * of it, the query events, and util.inspect / JSON.stringify of the engine and the transaction. The
 * token is bound in the failing statement, stored in the row a server quotes back, and put in the
 * URL as a password. Real servers; the tables live in each engineer's own test database.
 */

class Owner extends Model {
  static tablename = "tempest_redaction_owners";
  id = column.integer().primaryKey();
}

class Vault extends Model {
  static tablename = "tempest_redaction_vault";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  label = column.varchar(200).notNull();
  note = column.varchar(200);
  amount = column.integer();
  ownerId = column.integer();
}

const DDL = [
  "CREATE TABLE tempest_redaction_owners (id INTEGER PRIMARY KEY)",
  `CREATE TABLE tempest_redaction_vault (id INTEGER PRIMARY KEY, label VARCHAR(200) NOT NULL UNIQUE, note VARCHAR(200),
    amount INTEGER CHECK (amount >= 0), owner_id INTEGER, FOREIGN KEY (owner_id) REFERENCES tempest_redaction_owners (id))`,
];

interface Database {
  readonly name: "PostgreSQL" | "MariaDB" | "SQLite";
  readonly url: string;
  /** The same server with the token as the URL's password, or undefined where the server would refuse it. */
  readonly passwordUrl: (token: string) => string | undefined;
  /** A URL with the token as password that cannot connect. */
  readonly unreachableUrl: (token: string) => string;
  readonly typeError: (token: string, id: number) => ReturnType<typeof sql.expr>;
  readonly slowStatement: ((token: string) => ReturnType<typeof sql.expr>) | undefined;
  readonly rowLocks: boolean;
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-redaction-"));
const notADatabase = join(sqliteDir, "not-a-database.db");
writeFileSync(notADatabase, "this is not an SQLite file, and it is long enough to have a header".repeat(20));

function withPassword(url: string, token: string): string {
  const parsed = new URL(url);
  parsed.password = token;
  return parsed.toString();
}

const databases: Database[] = [
  {
    name: "PostgreSQL",
    url: PG_URL,
    // The shared server trusts local connections, so a password is sent and ignored.
    passwordUrl: (token) => withPassword(PG_URL, token),
    unreachableUrl: (token) => `postgresql://postgres:${token}@127.0.0.1:1/none`,
    typeError: (token) => sql.expr`SELECT CAST(${token} AS integer) AS n`,
    slowStatement: (token) => sql.expr`SELECT pg_sleep(2), ${token}::text AS t`,
    rowLocks: true,
  },
  {
    name: "MariaDB",
    url: MYSQL_URL,
    passwordUrl: () => undefined,
    unreachableUrl: (token) => `mysql://root:${token}@127.0.0.1:1/none`,
    typeError: (token, id) => sql.expr`INSERT INTO tempest_redaction_vault (id, label, amount) VALUES (${id}, ${`x${id}`}, ${token})`,
    slowStatement: undefined,
    rowLocks: true,
  },
  {
    name: "SQLite",
    url: `sqlite://${join(sqliteDir, "redaction.db")}`,
    passwordUrl: () => `sqlite://${join(sqliteDir, "redaction.db")}`,
    // Not a database file: the first statement fails with SQLITE_NOTADB, a connection error.
    unreachableUrl: () => `sqlite://${notADatabase}`,
    typeError: (token) => sql.expr`SELECT json_extract(${token}, '$.a') AS a`,
    slowStatement: undefined,
    rowLocks: false,
  },
];

/** Every place the token could travel to, as text. */
function traces(value: unknown): string[] {
  const out = [inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true })];
  try {
    out.push(JSON.stringify(value) ?? "");
  } catch (error) {
    out.push(String(error));
  }
  if (value instanceof Error) out.push(value.message, String(value.stack));
  return out;
}

async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the statement to fail");
}

const runs = process.env.CI ? 3 : 12;
const tokens = fc.stringMatching(/^[A-Za-z0-9_-]{12,32}$/).map((s) => `tok${s}`);

describe.each(databases)("$name: no bound value or password reaches a message (logParams off)", (database) => {
  let engine: Engine;
  let other: Engine;
  const events: QueryEvent[] = [];
  let nextId = 1;

  beforeAll(async () => {
    engine = createEngine(database.url, { poolSize: 3, slowQueryMs: 0, onQuery: (event) => events.push(event) });
    other = createEngine(database.url, { poolSize: 1, ...(database.slowStatement ? { statementTimeoutMs: 300 } : {}) });
    for (const table of ["tempest_redaction_vault", "tempest_redaction_owners"])
      await engine.execute(sql.raw(`DROP TABLE IF EXISTS ${table}`)).rowsAffected();
    for (const text of DDL) await engine.execute(sql.raw(text)).rowsAffected();
    await engine.execute(insert(Owner).values({ id: 1 })).rowsAffected();
  });

  afterAll(async () => {
    await engine.execute(sql.raw("DROP TABLE IF EXISTS tempest_redaction_vault")).rowsAffected();
    await engine.execute(sql.raw("DROP TABLE IF EXISTS tempest_redaction_owners")).rowsAffected();
    await engine.close();
    await other.close();
  });

  /** Each error kind this database can produce, with the token bound, stored or in the URL. */
  function scenarios(token: string): [string, () => Promise<unknown>][] {
    const id = () => nextId++;
    const list: [string, () => Promise<unknown>][] = [
      [
        "unique-violation (token bound, and stored in the row it collides with)",
        async () => {
          await engine.execute(insert(Vault).values({ id: id(), label: token, note: token })).rowsAffected();
          return failure(() => engine.execute(insert(Vault).values({ id: id(), label: token })).rowsAffected());
        },
      ],
      [
        "unique-violation by an update (the token only stored, not bound)",
        async () => {
          const mine = id();
          await engine.execute(insert(Vault).values({ id: mine, label: `${token}-u`, note: token })).rowsAffected();
          await engine.execute(insert(Vault).values({ id: id(), label: `${token}-v` })).rowsAffected();
          return failure(() =>
            engine.execute(sql.expr`UPDATE tempest_redaction_vault SET label = ${`${token}-v`} WHERE id = ${mine}`).rowsAffected(),
          );
        },
      ],
      [
        "foreign-key-violation",
        () =>
          failure(() =>
            engine.execute(insert(Vault).values({ id: id(), label: `${token}-f`, note: token, ownerId: 424242 })).rowsAffected(),
          ),
      ],
      [
        "not-null-violation (the token in another column of the failing row)",
        () =>
          failure(() =>
            engine
              .execute(sql.expr`INSERT INTO tempest_redaction_vault (id, label, note) VALUES (${id()}, ${null}, ${token})`)
              .rowsAffected(),
          ),
      ],
      [
        "check-violation (the token in another column of the failing row)",
        () =>
          failure(() => engine.execute(insert(Vault).values({ id: id(), label: `${token}-c`, note: token, amount: -1 })).rowsAffected()),
      ],
      ["a type error (the server quotes the bad input)", () => failure(() => engine.execute(database.typeError(token, id())).all())],
      ["syntax", () => failure(() => engine.execute(sql.expr`SELECT ${token} AS t FROM WHERE`).all())],
      [
        "the where of a failed transaction",
        () =>
          failure(() =>
            engine.transaction(async (tx) => {
              await tx.execute(select(Vault).where({ label: token })).all();
              await tx.execute(sql.expr`SELECT CAST(${token} AS integer) + ${token} AS n FROM nowhere_${sql.raw("table")}`).all();
            }),
          ),
      ],
      [
        "connection (the token is the URL's password)",
        async () => {
          const unreachable = createEngine(database.unreachableUrl(token), { poolSize: 1 });
          try {
            expect(traces(unreachable).join("\n")).not.toContain(token);
            return await failure(() => unreachable.execute(sql.raw("SELECT 1 AS one")).all());
          } finally {
            await unreachable.close().catch(() => {});
          }
        },
      ],
      ["ValidationError: a string into an integer field", () => failure(() => select(Vault).where({ amount: token as unknown as number }))],
      ["ValidationError: a too long varchar", () => failure(() => insert(Vault).values({ id: 1, label: token.repeat(20) }))],
      [
        "ValidationError: a forged operator on a helpers-only engine",
        () => {
          const strict = createEngine(database.url, { operators: "helpers-only" });
          return failure(() => strict.compile(select(Vault).where(JSON.parse(JSON.stringify({ label: { ne: token } }))))).finally(() =>
            strict.close(),
          );
        },
      ],
      [
        "ValidationError: a value where an operator object was meant",
        () => failure(() => select(Vault).where({ label: op.eq({ ne: token } as unknown as string) })),
      ],
      ["NoResultError", () => failure(() => engine.execute(select(Vault).where({ label: `${token}-none` })).one())],
      [
        "TooManyResultsError",
        async () => {
          await engine
            .execute(
              insert(Vault).values([
                { id: id(), label: `${token}-m1`, note: token },
                { id: id(), label: `${token}-m2`, note: token },
              ]),
            )
            .rowsAffected();
          return failure(() => engine.execute(select(Vault).where({ note: token })).oneOrNull());
        },
      ],
    ];
    if (database.rowLocks) {
      list.push([
        "lock-not-available (NOWAIT on a row another transaction holds)",
        async () => {
          const mine = id();
          await engine.execute(insert(Vault).values({ id: mine, label: `${token}-l`, note: token })).rowsAffected();
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          let locked!: () => void;
          const isLocked = new Promise<void>((resolve) => (locked = resolve));
          const holder = engine.transaction(async (tx) => {
            await tx
              .execute(
                select(Vault)
                  .where({ label: `${token}-l` })
                  .forUpdate(),
              )
              .all();
            locked();
            await held;
          });
          await isLocked;
          try {
            return await failure(() =>
              other.transaction((tx) =>
                tx
                  .execute(
                    select(Vault)
                      .where({ label: `${token}-l` })
                      .forUpdate({ noWait: true }),
                  )
                  .all(),
              ),
            );
          } finally {
            release();
            await holder;
          }
        },
      ]);
    } else {
      list.push([
        "UnsupportedFeatureError (row locks)",
        () => failure(() => engine.compile(select(Vault).where({ label: token }).forUpdate())),
      ]);
    }
    const slow = database.slowStatement;
    if (slow) list.push(["statement-timeout", () => failure(() => other.execute(slow(token)).all())]);
    return list;
  }

  it("a random token is in no error of any kind, no query event, and no inspected engine or transaction", async () => {
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(tokens, async (token) => {
        events.length = 0;
        for (const [name, run] of scenarios(token)) {
          const error = await run();
          expect(TempestError.isInstance(error), `${name}: ${String(error)}`).toBe(true);
          if (QueryError.isInstance(error)) kinds.add(error.kind);
          else kinds.add((error as Error).name);
          for (const trace of traces(error)) expect(trace, name).not.toContain(token);
        }
        for (const trace of traces(events)) expect(trace, "query events").not.toContain(token);
        const url = database.passwordUrl(token);
        if (url) {
          const withSecret = createEngine(url, { poolSize: 1 });
          try {
            for (const trace of traces(withSecret)) expect(trace, "engine").not.toContain(token);
            await withSecret.transaction(async (tx) => {
              await tx.execute(select(Vault).where({ label: token })).all();
              for (const trace of traces(tx)) expect(trace, "transaction").not.toContain(token);
            });
          } finally {
            await withSecret.close();
          }
        }
      }),
      { numRuns: runs },
    );
    // The scenarios did produce what they are named after (so the hunt looked where it should).
    for (const kind of [
      "unique-violation",
      "foreign-key-violation",
      "not-null-violation",
      "syntax",
      "connection",
      "ValidationError",
      "NoResultError",
      "TooManyResultsError",
    ]) {
      expect([...kinds]).toContain(kind);
    }
    if (database.name !== "SQLite") expect([...kinds]).toContain("check-violation");
    if (database.rowLocks) expect([...kinds]).toContain("lock-not-available");
    if (database.slowStatement) expect([...kinds]).toContain("statement-timeout");
  });

  it("with logParams on, the same hunt finds the token (the opt-in works, and the hunt can see)", async () => {
    const token = "tokLOGGED-parameter-visible";
    const logged: QueryEvent[] = [];
    const open = createEngine(database.url, { poolSize: 1, logParams: true, onQuery: (event) => logged.push(event) });
    try {
      await open.execute(insert(Vault).values({ id: nextId++, label: token })).rowsAffected();
      const error = await failure(() => open.execute(insert(Vault).values({ id: nextId++, label: token })).rowsAffected());
      expect((error as QueryError).params).toContain(token);
      expect(traces(error).join("\n")).toContain(token);
      expect(logged.some((event) => event.params?.includes(token))).toBe(true);
    } finally {
      await open.close();
    }
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
