import { describe, expect, it } from "vitest";
import { deleteFrom } from "../builder/delete-builder.js";
import { insert } from "../builder/insert-builder.js";
import { op } from "../builder/op.js";
import { select } from "../builder/select.js";
import type { Dialect } from "../dialect/dialect.js";
import type { Driver, DriverConfig, DriverConnection, DriverQuery } from "../dialect/driver.js";
import type { Engine, EngineOptions } from "../engine/engine.js";
import { RelComment, RelTicket, RelUser } from "./conformance-relation-models.js";

const at = (minute: number) => new Date(Date.UTC(2026, 2, 2, 9, minute));

/**
 * The dialect, its driver wrapped so that `before` runs (and is awaited) before each statement the
 * driver is handed, and so decides when the statement reaches the server. No synchronous shortcut
 * (runNow / queryNow) is offered, so every statement takes that path.
 */
function interleavedDialect(dialect: Dialect, before: (query: DriverQuery) => Promise<void>): Dialect {
  const wrapConnection = (connection: DriverConnection): DriverConnection => ({
    query: async (query) => {
      await before(query);
      return connection.query(query);
    },
    ...(connection.cancel ? { cancel: () => (connection.cancel as () => Promise<void>)() } : {}),
    release: (broken) => connection.release(broken),
  });
  const createDriver = (config: DriverConfig): Driver => {
    const driver = dialect.createDriver(config);
    return {
      ...(driver.maxConnections !== undefined ? { maxConnections: driver.maxConnections } : {}),
      acquire: async () => wrapConnection(await driver.acquire()),
      close: () => driver.close(),
    };
  };
  return Object.create(dialect, { createDriver: { value: createDriver } }) as Dialect;
}

/**
 * A nested load reads one snapshot while another connection commits between its levels: the
 * reader's driver holds the comments level until a second engine (its own connection) has inserted
 * and deleted comments, and the authors level until it has deleted an author. The tree loaded is the
 * one of the moment the owner rows were read; a load after it sees the writes. PostgreSQL and
 * MySQL/MariaDB: a read-only REPEATABLE READ transaction, its snapshot taken by the first read.
 * SQLite: the load's deferred transaction on the one connection, its snapshot fixed by the first
 * read (WAL lets the other connection commit meanwhile).
 */
export function relationSnapshotTests(engineOf: () => Engine, makeEngine: (options?: EngineOptions) => Engine): void {
  describe("one snapshot while another connection writes", () => {
    it("children inserted and deleted, and an author deleted, between the levels are not seen", async () => {
      const engine = engineOf();
      await engine.execute(insert(RelUser).values({ id: 30, name: "Zed", joinedAt: at(0) })).rowsAffected();
      await engine
        .execute(insert(RelTicket).values({ id: 30, title: "Snapshot", status: "open", estimate: null, openedAt: at(1), reporterId: 1 }))
        .rowsAffected();
      await engine
        .execute(
          insert(RelComment).values([
            { id: 300, ticketId: 30, authorId: 30, body: "by Zed", likes: 1n, postedAt: at(2) },
            { id: 301, ticketId: 30, authorId: 1, body: "deleted meanwhile", likes: 2n, postedAt: at(3) },
          ]),
        )
        .rowsAffected();
      const writer = makeEngine();
      const dialect = (engine as unknown as { core: { dialect: Dialect } }).core.dialect;
      const interleaved: string[] = [];
      const reader = makeEngine({
        dialect: interleavedDialect(dialect, async (query) => {
          if (!/^\s*select/i.test(query.sql)) return;
          if (interleaved.length === 0 && query.sql.includes("tempest_rel_comments")) {
            interleaved.push("comments");
            await writer
              .execute(
                insert(RelComment).values([
                  { id: 302, ticketId: 30, authorId: 1, body: "inserted meanwhile", likes: 3n, postedAt: at(4) },
                  { id: 303, ticketId: 30, authorId: 30, body: "inserted meanwhile", likes: 4n, postedAt: at(5) },
                ]),
              )
              .rowsAffected();
            await writer.execute(deleteFrom(RelComment).where({ id: 301 })).rowsAffected();
          } else if (interleaved.length === 1 && query.sql.includes("tempest_rel_users")) {
            interleaved.push("authors");
            await writer.execute(deleteFrom(RelUser).where({ id: 30 })).rowsAffected();
          }
        }),
      });
      const load = () =>
        select(RelTicket)
          .where({ id: 30 })
          .with({ comments: (c) => c.orderBy("id").with({ author: true }) })
          .withCount({ comments: (c) => c.where({ likes: op.gte(0n) }) });
      try {
        const [seen] = await reader.execute(load()).all();
        expect(interleaved).toEqual(["comments", "authors"]);
        expect(seen?.comments.map((c) => [c.id, c.author?.name ?? null])).toEqual([
          [300, "Zed"],
          [301, "Ada"],
        ]);
        expect(seen?._count).toEqual({ comments: 2 });
        const [after] = await reader.execute(load()).all();
        expect(after?.comments.map((c) => [c.id, c.author?.name ?? null])).toEqual([
          [300, null],
          [302, "Ada"],
          [303, null],
        ]);
        expect(after?._count).toEqual({ comments: 3 });
      } finally {
        await reader.close();
        await writer.close();
        await engine.execute(deleteFrom(RelComment).where({ ticketId: 30 })).rowsAffected();
        await engine.execute(deleteFrom(RelTicket).where({ id: 30 })).rowsAffected();
        await engine.execute(deleteFrom(RelUser).where({ id: 30 })).rowsAffected();
      }
    });
  });
}
