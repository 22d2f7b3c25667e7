import { expect } from "vitest";
import { cte, cteRecursive } from "../builder/cte.js";
import type { Executable } from "../builder/executable.js";
import { ref } from "../builder/query-helpers.js";
import { select } from "../builder/select.js";
import { update } from "../builder/update-builder.js";
import type { Engine } from "../engine/engine.js";
import { sql } from "../expression/sql.js";
import type { ConformanceCase } from "./conformance-cases.js";
import { JOB_IDS, ConformanceJob as Job } from "./conformance-models.js";

/** Rows returned by a query, by field. */
async function rowsOf(engine: Engine, query: Executable<unknown>) {
  return (await engine.execute(query).all()) as Record<string, unknown>[];
}

const queued = () =>
  cte("queued", select(Job, "j").columns({ id: "j.id", consumer: "j.consumer", attempts: "j.attempts" }).where({ "j.status": "queued" }));
const consumers = (status: "queued" | "sent") => select(Job, ["consumer"]).where({ status });
/** The statuses of billing's jobs and of mail's: queued, and the mail job's (failed, see failMail). */
const consumerStatuses = () =>
  select(Job, ["status"])
    .where({ consumer: "billing" })
    .union(select(Job, ["status"]).where({ consumer: "mail" }));
/** The mail job failed: "failed" sorts before "queued" as text and after it in the enum's declaration order. */
const failMail = (engine: Engine) => engine.execute(update(Job).set({ status: "failed" }).where({ consumer: "mail" })).rowsAffected();

/**
 * CTEs and set operations over the seeded jobs (see conformance-cases): one case per construct,
 * the exact SQL per dialect, then the rows on the real server.
 */
export const setCases = {
  "cte.select": {
    build: () =>
      select(queued(), "q")
        .where({ "q.attempts": { gte: 0 } })
        .orderBy("q.attempts", "desc"),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: JOB_IDS[1], consumer: "billing", attempts: 2 },
        { id: JOB_IDS[0], consumer: "billing", attempts: 0 },
      ]);
    },
  },
  "cte.join": {
    build: () => {
      const perConsumer = cte(
        "per_consumer",
        select(Job, "j")
          .columns((q) => ({ consumer: "j.consumer", jobs: q.count() }))
          .groupBy("j.consumer"),
      );
      return select(Job, "j")
        .innerJoin(perConsumer, "p", "p.consumer", "j.consumer")
        .columns({ id: "j.id", jobs: "p.jobs" })
        .orderBy("j.id");
    },
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: JOB_IDS[0], jobs: 2 },
        { id: JOB_IDS[1], jobs: 2 },
        { id: JOB_IDS[2], jobs: 1 },
      ]);
    },
  },
  "cte.recursive": {
    build: () => {
      // From the job with 2 attempts down to 0: each step finds the job with one attempt less.
      const countdown = cteRecursive(
        "countdown",
        select(Job, "j").columns({ id: "j.id", attempts: "j.attempts" }).where({ "j.id": JOB_IDS[1] }),
        (self) =>
          select(Job, "j")
            .innerJoin(self, "c", sql.expr`${ref(Job, "j", "attempts")} = ${ref(self, "c", "attempts")} - 1`)
            .columns({ id: "j.id", attempts: "j.attempts" }),
      );
      return select(countdown, "c").orderBy("c.attempts", "desc");
    },
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: JOB_IDS[1], attempts: 2 },
        { id: JOB_IDS[2], attempts: 1 },
        { id: JOB_IDS[0], attempts: 0 },
      ]);
    },
  },
  "cte.materialized": {
    build: () => {
      const once = cte("once", select(Job, ["id", "status"]).where({ consumer: "billing" }), { materialized: true });
      return select(once).orderBy("id");
    },
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: JOB_IDS[0], status: "queued" },
        { id: JOB_IDS[1], status: "queued" },
      ]);
    },
  },
  "cte.notMaterialized": {
    build: () => select(cte("inline", select(Job, ["id"]).where({ status: "sent" }), { materialized: false })),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ id: JOB_IDS[2] }]);
    },
  },
  "cte.dataModifying": {
    build: () => {
      const claimed = cte("claimed", update(Job).set({ status: "sending" }).where({ status: "queued" }).returning(["id", "status"]));
      return select(claimed).orderBy("id");
    },
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: JOB_IDS[0], status: "sending" },
        { id: JOB_IDS[1], status: "sending" },
      ]);
      expect(await rowsOf(engine, select(Job, ["id"]).where({ status: "queued" }))).toEqual([]);
    },
  },
  "set.union": {
    build: () => consumers("queued").union(consumers("sent")).orderBy("consumer"),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ consumer: "billing" }, { consumer: "mail" }]);
    },
  },
  "set.unionAllPartLimit": {
    build: () =>
      select(Job, ["id", "attempts"])
        .orderBy("attempts", "desc")
        .limit(1)
        .unionAll(select(Job, ["id", "attempts"]).orderBy("attempts").limit(1))
        .orderBy("attempts"),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: JOB_IDS[0], attempts: 0 },
        { id: JOB_IDS[1], attempts: 2 },
      ]);
    },
  },
  "set.intersect": {
    build: () => select(Job, ["consumer"]).intersect(consumers("sent")),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ consumer: "mail" }]);
    },
  },
  "set.except": {
    build: () => select(Job, ["consumer"]).except(consumers("sent")),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ consumer: "billing" }]);
    },
  },
  "set.intersectAll": {
    build: () => select(Job, ["consumer"]).intersectAll(consumers("queued")).orderBy("consumer"),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ consumer: "billing" }, { consumer: "billing" }]);
    },
  },
  "set.exceptAll": {
    build: () => select(Job, ["consumer"]).exceptAll(consumers("queued")),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ consumer: "mail" }]);
    },
  },
  "set.grouping": {
    // (billing, billing, mail UNION mail) INTERSECT billing: built left to right, whatever the precedence.
    build: () => consumers("queued").union(consumers("sent")).intersect(consumers("queued")),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ consumer: "billing" }]);
    },
  },
  "set.enumOrder": {
    // An enum through a set operation sorts in declaration order (failed after queued), not as text.
    build: () => consumerStatuses().orderBy("status", "desc"),
    check: async (engine, query) => {
      await failMail(engine);
      expect(await rowsOf(engine, query)).toEqual([{ status: "failed" }, { status: "queued" }]);
    },
  },
  "cte.enumOrder": {
    build: () => select(cte("statuses", consumerStatuses()), "s").orderBy("s.status", "desc"),
    check: async (engine, query) => {
      await failMail(engine);
      expect(await rowsOf(engine, query)).toEqual([{ status: "failed" }, { status: "queued" }]);
    },
  },
  "set.intersectAllThenExceptAll": {
    // (billing, billing, mail ∩ billing, billing) minus mail: a chain MariaDB 10.11 loops on when written flat.
    build: () => select(Job, ["consumer"]).intersectAll(consumers("queued")).exceptAll(consumers("sent")),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ consumer: "billing" }, { consumer: "billing" }]);
    },
  },
} satisfies Record<string, ConformanceCase>;
