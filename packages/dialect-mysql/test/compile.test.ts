import {
  column,
  createEngine,
  createIndexes,
  createTable,
  deleteFrom,
  insert,
  Model,
  select,
  sql,
  UnsupportedFeatureError,
  uniqueIndex,
  update,
  ValidationError,
} from "tempest-db-js";
import { describe, expect, it } from "vitest";
import { Defaults, Everything, Outbound } from "./models.js";
import { OFFLINE_MARIADB, OFFLINE_MYSQL } from "./support.js";

/** The dialect's ilike folding: A-Z replaced by a-z, one REPLACE per letter. */
function asciiLower(sql: string): string {
  let folded = sql;
  for (let c = 65; c <= 90; c++) folded = `REPLACE(${folded}, '${String.fromCharCode(c)}', '${String.fromCharCode(c + 32)}')`;
  return folded;
}

// createEngine does not connect: these compile against the scheme's assumption, with no server.
const maria = createEngine(OFFLINE_MARIADB);
const mysql8 = createEngine(OFFLINE_MYSQL);

const ID = "0b6c5c8e-4a8e-4d6a-9a3c-2f1e0d9c8b7a";
const T = "`dm_outbound_messages`";

function refusal(run: () => unknown): UnsupportedFeatureError {
  try {
    run();
  } catch (error) {
    if (UnsupportedFeatureError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected UnsupportedFeatureError");
}

describe("the claim (guide, two steps)", () => {
  it("selects with FOR UPDATE SKIP LOCKED after the LIMIT", () => {
    const q = select(Outbound, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10).forUpdate({ skipLocked: true });
    for (const engine of [maria, mysql8]) {
      expect(engine.compile(q)).toMatchObject({
        sql: `SELECT \`id\` FROM ${T} WHERE \`status\` = ? ORDER BY \`next_attempt_at\` ASC LIMIT 10 FOR UPDATE SKIP LOCKED`,
        params: ["queued"],
      });
    }
  });

  it("updates by ids with the increment and the UTC clock in SQL", () => {
    const q = update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({ id: { in: [ID, ID.toUpperCase()] } });
    expect(maria.compile(q)).toMatchObject({
      sql: `UPDATE ${T} SET \`status\` = ?, \`attempts\` = attempts + 1, \`updated_at\` = UTC_TIMESTAMP(3) WHERE \`id\` IN (?, ?)`,
      // uuids are lower-cased, as PostgreSQL's uuid type would read them back.
      params: ["sending", ID, ID],
    });
  });

  it("refuses the single-statement claim and names the two-step way", () => {
    const q = update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({
        id: {
          in: select(Outbound)
            .where({ status: "queued" })
            .orderBy("nextAttemptAt")
            .limit(10)
            .forUpdate({ skipLocked: true })
            .asSubquery("id"),
        },
      });
    for (const engine of [maria, mysql8]) {
      const error = refusal(() => engine.compile(q));
      expect(error.feature).toBe("LIMIT inside an IN (SELECT ...) subquery");
      expect(error.hint).toContain("Claim in two steps");
      expect(error.hint).toContain("forUpdate()");
    }
  });

  it("lets MariaDB read the written table in a subquery, and refuses it on MySQL (error 1093)", () => {
    const q = deleteFrom(Outbound).where({ id: { in: select(Outbound).where({ status: "failed" }).asSubquery("id") } });
    expect(maria.compile(q).sql).toBe(`DELETE FROM ${T} WHERE \`id\` IN (SELECT \`id\` FROM ${T} WHERE \`status\` = ?)`);
    const error = refusal(() => mysql8.compile(q));
    expect(error.feature).toContain("error 1093");
    expect(error.hint).toContain("two steps");
  });
});

describe("locks", () => {
  const base = select(Outbound, ["id"]).where({ id: ID });

  it("spells NOWAIT", () => {
    expect(maria.compile(base.forUpdate({ noWait: true })).sql).toBe(`SELECT \`id\` FROM ${T} WHERE \`id\` = ? FOR UPDATE NOWAIT`);
  });

  it("spells a shared lock the way each server wants", () => {
    expect(maria.compile(base.forShare()).sql).toBe(`SELECT \`id\` FROM ${T} WHERE \`id\` = ? LOCK IN SHARE MODE`);
    expect(maria.compile(base.forShare({ skipLocked: true })).sql).toBe(
      `SELECT \`id\` FROM ${T} WHERE \`id\` = ? LOCK IN SHARE MODE SKIP LOCKED`,
    );
    expect(mysql8.compile(base.forShare()).sql).toBe(`SELECT \`id\` FROM ${T} WHERE \`id\` = ? FOR SHARE`);
  });

  it("has FOR UPDATE OF on MySQL 8 only", () => {
    const q = base.forUpdate({ of: [Outbound] });
    expect(mysql8.compile(q).sql).toBe(`SELECT \`id\` FROM ${T} WHERE \`id\` = ? FOR UPDATE OF ${T}`);
    const error = refusal(() => maria.compile(q));
    expect(error.dialect).toBe("MySQL");
    expect(error.message).toMatch(/^MariaDB 10\.11 does not support FOR UPDATE OF\. Drop \{ of \}/);
    expect(error.stack).toContain("MariaDB 10.11 does not support FOR UPDATE OF");
    expect(error.feature).toBe("FOR UPDATE OF");
    expect(error.hint).toContain("Drop { of }");
  });
});

describe("select details", () => {
  it("writes an OFFSET without LIMIT with MySQL's largest LIMIT", () => {
    expect(maria.compile(select(Outbound, ["id"]).orderBy("id").offset(5)).sql).toBe(
      `SELECT \`id\` FROM ${T} ORDER BY \`id\` ASC LIMIT 18446744073709551615 OFFSET 5`,
    );
    expect(maria.compile(select(Outbound, ["id"]).limit(3).offset(5)).sql).toBe(`SELECT \`id\` FROM ${T} LIMIT 3 OFFSET 5`);
  });

  it("pages a DISTINCT with an OFFSET over its distinct rows on MariaDB, which drops the offset of constant rows", () => {
    const consumers = select(Outbound, "o").columns({ consumer: "o.consumer" }).distinct().limit(2);
    const inPlace = `SELECT DISTINCT \`o\`.\`consumer\` AS \`consumer\` FROM ${T} AS \`o\``;
    expect(maria.compile(consumers.offset(2)).sql).toBe(`SELECT * FROM (${inPlace}) AS \`tempest_distinct\` LIMIT 2 OFFSET 2`);
    expect(maria.compile(consumers.offset(0)).sql).toBe(`${inPlace} LIMIT 2 OFFSET 0`);
    expect(mysql8.compile(consumers.offset(2)).sql).toBe(`${inPlace} LIMIT 2 OFFSET 2`);
  });

  it("writes ilike as LIKE over A-Z folded by REPLACE on both sides", () => {
    expect(maria.compile(select(Outbound, ["id"]).where({ consumer: { ilike: "Billing%" } }))).toMatchObject({
      sql: `SELECT \`id\` FROM ${T} WHERE ${asciiLower("`consumer`")} LIKE ${asciiLower("?")}`,
      params: ["Billing%"],
    });
  });

  it("shifts the UTC clock by whole milliseconds", () => {
    const q = select(Outbound, ["id"]).where({ nextAttemptAt: { lte: sql.nowPlusSeconds(1.5) } });
    expect(maria.compile(q)).toMatchObject({
      sql: `SELECT \`id\` FROM ${T} WHERE \`next_attempt_at\` <= TIMESTAMPADD(MICROSECOND, ROUND(? * 1000) * 1000, UTC_TIMESTAMP(3))`,
      params: [1.5],
    });
  });

  it("binds a Date as UTC text", () => {
    const q = select(Outbound, ["id"]).where({ nextAttemptAt: { lt: new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 7)) } });
    expect(maria.compile(q).params).toEqual(["2024-02-29 23:59:59.007"]);
  });

  it("quotes identifiers with backticks, doubling a backtick, and rejects NUL", () => {
    class Odd extends Model {
      static tablename = "dm_odd`name";
      weird = column.integer().name("we`ird");
    }
    expect(maria.compile(select(Odd)).sql).toBe("SELECT `we``ird` FROM `dm_odd``name`");
    class Nul extends Model {
      static tablename = "dm_nul\0";
      x = column.integer();
    }
    expect(() => maria.compile(select(Nul))).toThrow(ValidationError);
  });
});

describe("insert and conflicts", () => {
  const row = {
    id: ID,
    consumer: "billing",
    idempotencyKey: "k-1",
    status: "queued" as const,
    nextAttemptAt: new Date(Date.UTC(2024, 0, 1)),
  };
  const head = `INSERT INTO ${T} (\`id\`, \`consumer\`, \`idempotency_key\`, \`status\`, \`next_attempt_at\`) VALUES (?, ?, ?, ?, ?)`;

  it("inserts rows with ? placeholders", () => {
    expect(maria.compile(insert(Outbound).values(row))).toMatchObject({
      sql: head,
      params: [ID, "billing", "k-1", "queued", "2024-01-01 00:00:00.000"],
    });
  });

  it("writes an insert of defaults only as () VALUES ()", () => {
    expect(maria.compile(insert(Defaults).values({})).sql).toBe("INSERT INTO `dm_defaults` () VALUES ()");
  });

  it("writes onDuplicateKeyUpdate with VALUES(col) for sql.excluded", () => {
    const q = insert(Outbound)
      .values(row)
      .onDuplicateKeyUpdate({ status: sql.excluded("status"), attempts: sql.expr`${sql.ref("attempts")} + ${1}`, updatedAt: sql.now() });
    expect(maria.compile(q)).toMatchObject({
      sql: `${head} ON DUPLICATE KEY UPDATE \`status\` = VALUES(\`status\`), \`attempts\` = \`attempts\` + ?, \`updated_at\` = UTC_TIMESTAMP(3)`,
      params: [ID, "billing", "k-1", "queued", "2024-01-01 00:00:00.000", 1],
    });
  });

  it("writes ignoreDuplicates() and a target-less onConflictDoNothing() as INSERT IGNORE", () => {
    const ignore = head.replace("INSERT INTO", "INSERT IGNORE INTO");
    expect(maria.compile(insert(Outbound).values(row).ignoreDuplicates()).sql).toBe(ignore);
    expect(maria.compile(insert(Outbound).values(row).onConflictDoNothing()).sql).toBe(ignore);
  });

  it("refuses a conflict target, naming onDuplicateKeyUpdate and ignoreDuplicates", () => {
    const withTarget = [
      insert(Outbound)
        .values(row)
        .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: { isNull: false } } }),
      insert(Outbound).values(row).onConflictDoNothing(["id"]),
      insert(Outbound).values(row).onConflictDoUpdate(["id"], { status: "queued" }),
    ];
    for (const q of withTarget) {
      for (const engine of [maria, mysql8]) {
        const error = refusal(() => engine.compile(q));
        expect(error.feature).toBe("a conflict target (ON CONFLICT (columns))");
        expect(error.hint).toContain("onDuplicateKeyUpdate(set)");
        expect(error.hint).toContain("ignoreDuplicates()");
      }
    }
  });

  it("has INSERT and DELETE ... RETURNING on MariaDB, not on MySQL", () => {
    const ins = insert(Outbound).values(row).returning(["id", "attempts"]);
    expect(maria.compile(ins).sql).toBe(`${head} RETURNING \`id\`, \`attempts\``);
    expect(refusal(() => mysql8.compile(ins)).feature).toBe("RETURNING on INSERT");
    const del = deleteFrom(Outbound).where({ id: ID }).returning(["id"]);
    expect(maria.compile(del).sql).toBe(`DELETE FROM ${T} WHERE \`id\` = ? RETURNING \`id\``);
    expect(refusal(() => mysql8.compile(del)).feature).toBe("RETURNING on DELETE");
  });

  it("refuses RETURNING on UPDATE everywhere, naming the way out", () => {
    const q = update(Outbound).set({ status: "sent" }).where({ id: ID }).returning();
    for (const engine of [maria, mysql8]) {
      const error = refusal(() => engine.compile(q));
      expect(error.feature).toBe("RETURNING on UPDATE");
      expect(error.hint).toContain("select the rows by their ids");
    }
  });
});

describe("DDL", () => {
  it("creates the guide's table as InnoDB with a binary collation, keyed text as varchar(255)", () => {
    const columns =
      "`id` char(36) NOT NULL, `consumer` varchar(255) NOT NULL, `idempotency_key` varchar(255), " +
      "`status` enum('queued', 'sending', 'sent', 'failed') NOT NULL, `attempts` int NOT NULL DEFAULT 0, " +
      "`next_attempt_at` datetime(3) NOT NULL, `updated_at` datetime(3), PRIMARY KEY (`id`)";
    expect(maria.compile(createTable(Outbound)).sql).toBe(
      `CREATE TABLE ${T} (${columns}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin`,
    );
    expect(mysql8.compile(createTable(Outbound)).sql).toBe(
      `CREATE TABLE ${T} (${columns}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin`,
    );
  });

  it("maps every column kind", () => {
    expect(maria.compile(createTable(Everything, { ifNotExists: true })).sql).toBe(
      "CREATE TABLE IF NOT EXISTS `dm_everything` (`id` char(36) NOT NULL, `label` longtext, `code` varchar(20), `small` int, " +
        "`big` bigint, `ratio` double, `amount` decimal(30, 10), `any_number` decimal(65, 30), `flag` tinyint(1), " +
        "`at` datetime(3), `day` date, `doc` json, `state` enum('on', 'off', 'it''s'), `blob` longblob, PRIMARY KEY (`id`)) " +
        "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin",
    );
  });

  it("escapes backslashes in literals and writes TEXT defaults and expression defaults in parentheses", () => {
    expect(maria.compile(createTable(Defaults)).sql).toBe(
      "CREATE TABLE `dm_defaults` (`seq` int NOT NULL DEFAULT 7, `note` longtext DEFAULT ('a\\\\b ''quoted'''), " +
        "`created_at` datetime(3) NOT NULL DEFAULT (UTC_TIMESTAMP(3))) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin",
    );
  });

  it("gives a random uuid default uuid()", () => {
    class WithRandom extends Model {
      static tablename = "dm_random";
      id = column.uuid().primaryKey().defaultRandom();
    }
    expect(maria.compile(createTable(WithRandom)).sql).toContain("`id` char(36) NOT NULL DEFAULT (uuid())");
  });

  it("writes the guide's partial unique index as a plain unique index (NULLs never collide)", () => {
    const [idempotency, claim] = createIndexes(Outbound, { ifNotExists: true });
    expect(maria.compile(idempotency!).sql).toBe(
      `CREATE UNIQUE INDEX IF NOT EXISTS \`dm_outbound_idempotency\` ON ${T} (\`consumer\`, \`idempotency_key\`)`,
    );
    // MySQL has no CREATE INDEX IF NOT EXISTS.
    expect(mysql8.compile(idempotency!).sql).toBe(
      `CREATE UNIQUE INDEX \`dm_outbound_idempotency\` ON ${T} (\`consumer\`, \`idempotency_key\`)`,
    );
    expect(maria.compile(claim!).sql).toBe(`CREATE INDEX IF NOT EXISTS \`dm_outbound_claim\` ON ${T} (\`status\`, \`next_attempt_at\`)`);
  });

  it("refuses a partial unique index whose predicate is more than IS NOT NULL of its own columns", () => {
    class OnePending extends Model {
      static tablename = "dm_one_pending";
      static indexes = [uniqueIndex<OnePending>("dm_one_pending_per_consumer", ["consumer"]).where({ status: "queued" })];
      id = column.integer().primaryKey();
      consumer = column.text().notNull();
      status = column.text().notNull();
    }
    const error = refusal(() => maria.compile(createIndexes(OnePending)[0]!));
    expect(error.feature).toBe("the partial unique index dm_one_pending_per_consumer");
    expect(error.hint).toContain("IS NOT NULL");
  });
});

describe("string and date expressions", () => {
  it("CHAR_LENGTH, CONCAT and the A-Z folding in the binary collation; dates on the UTC DATETIME(3)", () => {
    const query = select(Outbound).columns((q) => ({
      week: q.dateTrunc("week", "nextAttemptAt"),
      year: q.extract("isoYear", "nextAttemptAt"),
      due: q.addInterval("updatedAt", "attempts", "minutes"),
      back: q.subInterval("nextAttemptAt", 1, "months"),
      waited: q.diffSeconds("nextAttemptAt", "updatedAt"),
      name: q.concat(q.lower("consumer"), q.val("#")),
      size: q.length("consumer"),
    }));
    const { sql: text, params } = maria.compile(query);
    expect({ sql: text, params }).toMatchInlineSnapshot(`
      {
        "params": [
          -1,
          "#",
        ],
        "sql": "SELECT CAST(DATE_SUB(CAST(\`dm_outbound_messages\`.\`next_attempt_at\` AS DATE), INTERVAL WEEKDAY(\`dm_outbound_messages\`.\`next_attempt_at\`) DAY) AS DATETIME(3)) AS \`week\`, (YEARWEEK(\`dm_outbound_messages\`.\`next_attempt_at\`, 3) DIV 100) AS \`year\`, NULLIF(GREATEST(CAST(DATE_ADD(\`dm_outbound_messages\`.\`updated_at\`, INTERVAL NULLIF(NULLIF(GREATEST(LEAST(\`dm_outbound_messages\`.\`attempts\`, 525949201), (-525949201)), 525949201), (-525949201)) MINUTE) AS DATETIME(3)), CAST('0000-12-31 23:59:59.999' AS DATETIME(3))), CAST('0000-12-31 23:59:59.999' AS DATETIME(3))) AS \`due\`, NULLIF(GREATEST(CAST(DATE_ADD(\`dm_outbound_messages\`.\`next_attempt_at\`, INTERVAL CAST(? AS SIGNED) MONTH) AS DATETIME(3)), CAST('0000-12-31 23:59:59.999' AS DATETIME(3))), CAST('0000-12-31 23:59:59.999' AS DATETIME(3))) AS \`back\`, ((((TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', \`dm_outbound_messages\`.\`next_attempt_at\`) DIV 1000) - (TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', \`dm_outbound_messages\`.\`updated_at\`) DIV 1000)) + 0e0) / 1000) AS \`waited\`, CONCAT((REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE((\`dm_outbound_messages\`.\`consumer\` COLLATE utf8mb4_nopad_bin), 'A', 'a'), 'B', 'b'), 'C', 'c'), 'D', 'd'), 'E', 'e'), 'F', 'f'), 'G', 'g'), 'H', 'h'), 'I', 'i'), 'J', 'j'), 'K', 'k'), 'L', 'l'), 'M', 'm'), 'N', 'n'), 'O', 'o'), 'P', 'p'), 'Q', 'q'), 'R', 'r'), 'S', 's'), 'T', 't'), 'U', 'u'), 'V', 'v'), 'W', 'w'), 'X', 'x'), 'Y', 'y'), 'Z', 'z') COLLATE utf8mb4_nopad_bin), (? COLLATE utf8mb4_nopad_bin)) AS \`name\`, CHAR_LENGTH(\`dm_outbound_messages\`.\`consumer\`) AS \`size\` FROM \`dm_outbound_messages\`",
      }
    `);
  });
});
