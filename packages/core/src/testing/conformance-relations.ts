import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, not, or } from "../builder/condition.js";
import { deleteFrom } from "../builder/delete-builder.js";
import { insert } from "../builder/insert-builder.js";
import { op } from "../builder/op.js";
import { related } from "../builder/related.js";
import { select } from "../builder/select.js";
import type { Engine, EngineOptions } from "../engine/engine.js";
import type { QueryEvent } from "../engine/query-event.js";
import {
  RelCategory,
  RelComment,
  RelLabel,
  RelProfile,
  RelTicket,
  RelTicketLabel,
  RelUser,
  relationModels,
} from "./conformance-relation-models.js";
import { relationSnapshotTests } from "./conformance-relation-snapshot.js";

const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 9, minute, 0, minute));

export const relUsers = [
  { id: 1, name: "Ada", joinedAt: at(1) },
  { id: 2, name: "Brian", joinedAt: at(2) },
  { id: 3, name: "Chen", joinedAt: at(3) },
  { id: 4, name: "Dora", joinedAt: at(4) },
  // Deleted once the comments are in: comment 102 keeps authorId 5 (Comment.authorId has no foreign key).
  { id: 5, name: "Eve", joinedAt: at(5) },
];
const profiles = [
  { id: 1, userId: 1, balance: "10.50", settings: { theme: "dark" } },
  { id: 2, userId: 2, balance: "0.00", settings: null },
];
const categories = [
  { id: 1, name: "Support", parentId: null },
  { id: 2, name: "Billing", parentId: 1 },
  { id: 3, name: "Refunds", parentId: 2 },
  { id: 4, name: "Sales", parentId: null },
];
const tickets = [
  {
    id: 10,
    title: "Login fails",
    status: "open" as const,
    estimate: "3.50",
    openedAt: at(10),
    reporterId: 1,
    assigneeId: 2,
    categoryId: 2,
  },
  { id: 11, title: "Refund", status: "closed" as const, estimate: null, openedAt: at(11), reporterId: 2, assigneeId: null, categoryId: 3 },
  {
    id: 12,
    title: "No comments",
    status: "open" as const,
    estimate: "1.00",
    openedAt: at(12),
    reporterId: 3,
    assigneeId: 2,
    categoryId: null,
  },
];
const comments = [
  { id: 100, ticketId: 10, authorId: 1, body: "first", likes: 5n, postedAt: at(20) },
  { id: 101, ticketId: 10, authorId: 2, body: "second", likes: 9n, postedAt: at(21) },
  { id: 102, ticketId: 10, authorId: 5, body: "author deleted", likes: 5n, postedAt: at(22) },
  { id: 103, ticketId: 10, authorId: null, body: "anonymous", likes: 1n, postedAt: at(23) },
  { id: 104, ticketId: 11, authorId: 3, body: "refunded", likes: 9007199254740993n, postedAt: at(24) },
];
const labels = [
  { id: "bug", color: "red" },
  { id: "unused", color: "grey" },
  { id: "urgent", color: "orange" },
];
const ticketLabels = [
  { ticketId: 10, labelId: "bug" },
  { ticketId: 10, labelId: "urgent" },
  { ticketId: 11, labelId: "urgent" },
];

/** Owner rows of the statement-count case; TEMPEST_RELATION_PARENTS for the full 100,000 (the default passes SQLite's 32,766 parameters). */
const MANY = Number(process.env.TEMPEST_RELATION_PARENTS ?? 40_000);
const BULK_FROM = 1_000_000;

const user = (id: number) => relUsers.find((u) => u.id === id) ?? null;
const comment = (id: number) => comments.find((c) => c.id === id);

/**
 * Relations on the dialect's real server: declared on the models, loaded with `.with()` /
 * `.withCount()` level by level (one statement per relation and level, whatever the number of
 * rows), nested rows decoded exactly as top-level rows, limits per owner row, and the same answer
 * as the rows assembled from plain joins.
 */
export function relationTests(engineOf: () => Engine, makeEngine: (options?: EngineOptions) => Engine): void {
  describe("relations", () => {
    let engine: Engine;

    beforeAll(async () => {
      engine = engineOf();
      await engine.dropAll(relationModels);
      await engine.createAll(relationModels);
      await engine.execute(insert(RelUser).values(relUsers)).rowsAffected();
      await engine.execute(insert(RelProfile).values(profiles)).rowsAffected();
      await engine.execute(insert(RelCategory).values(categories)).rowsAffected();
      await engine.execute(insert(RelTicket).values(tickets)).rowsAffected();
      await engine.execute(insert(RelComment).values(comments)).rowsAffected();
      await engine.execute(insert(RelLabel).values(labels)).rowsAffected();
      await engine.execute(insert(RelTicketLabel).values(ticketLabels)).rowsAffected();
      await engine.execute(deleteFrom(RelUser).where({ id: 5 })).rowsAffected();
    });

    afterAll(async () => {
      await engine.dropAll(relationModels);
    });

    it("a ticket page in one call: belongs-to, has-one, has-many with their own belongs-to, many-to-many, a self-reference", async () => {
      const page = await engine
        .execute(
          select(RelTicket)
            .where({ id: 10 })
            .with({
              reporter: true,
              assignee: (u) => u.with({ profile: true }),
              comments: (c) => c.orderBy("postedAt").with({ author: true }),
              labels: true,
              category: (c) => c.with({ parent: true }),
            }),
        )
        .one();
      expect(page).toEqual({
        ...tickets[0],
        reporter: user(1),
        assignee: { ...user(2), profile: profiles[1] },
        comments: [
          { ...comment(100), author: user(1) },
          { ...comment(101), author: user(2) },
          { ...comment(102), author: null },
          { ...comment(103), author: null },
        ],
        labels: [labels[0], labels[2]],
        category: { ...categories[1], parent: categories[0] },
      });
      // Nested values decode as top-level ones do: Date, decimal strings, json, bigint.
      expect(page.comments[0]?.postedAt).toBeInstanceOf(Date);
      expect(typeof page.comments[0]?.likes).toBe("bigint");
      expect(page.assignee?.profile?.balance).toBe("0.00");
    });

    it("empty and null: no children is [], a NULL key or a deleted row is null, a one-to-one without a row is null", async () => {
      const rows = await engine
        .execute(
          select(RelTicket)
            .orderBy("id")
            .with({ assignee: true, comments: (c) => c.orderBy("id"), category: true }),
        )
        .all();
      expect(rows.map((t) => [t.id, t.assignee?.id ?? null, t.comments.map((c) => c.id), t.category?.name ?? null])).toEqual([
        [10, 2, [100, 101, 102, 103], "Billing"],
        [11, null, [104], "Refunds"],
        [12, 2, [], null],
      ]);
      const users = await engine
        .execute(
          select(RelUser)
            .orderBy("id")
            .with({ profile: true, assigned: (t) => t.orderBy("id") }),
        )
        .all();
      expect(users.map((u) => [u.id, u.profile?.settings ?? null, u.assigned.map((t) => t.id)])).toEqual([
        [1, { theme: "dark" }, []],
        [2, null, [10, 12]],
        [3, null, []],
        [4, null, []],
      ]);
      expect(users[1]?.profile).toEqual(profiles[1]);
      expect(users[2]?.profile).toBeNull();
    });

    it("a limit and an offset per owner row, ties broken by the primary key", async () => {
      const top = await engine
        .execute(
          select(RelTicket)
            .orderBy("id")
            .with({ comments: (c) => c.orderBy("likes", "desc").limit(2) }),
        )
        .all();
      expect(top.map((t) => t.comments.map((c) => c.id))).toEqual([[101, 100], [104], []]);
      const next = await engine
        .execute(
          select(RelTicket)
            .orderBy("id")
            .with({ comments: (c) => c.orderBy("likes", "desc").offset(1).limit(2) }),
        )
        .all();
      expect(next.map((t) => t.comments.map((c) => c.id))).toEqual([[100, 102], [], []]);
      const skipped = await engine
        .execute(
          select(RelTicket)
            .orderBy("id")
            .with({ labels: (l) => l.orderBy("id", "desc").offset(1) }),
        )
        .all();
      expect(skipped.map((t) => t.labels.map((l) => l.id))).toEqual([["bug"], [], []]);
    });

    it("a where on a nested level, and the levels below it", async () => {
      const rows = await engine
        .execute(
          select(RelCategory)
            .where({ parentId: op.isNull() })
            .orderBy("id")
            .with({ children: (c) => c.orderBy("id").with({ children: true, tickets: (t) => t.where({ status: "closed" }) }) }),
        )
        .all();
      expect(rows).toEqual([
        { ...categories[0], children: [{ ...categories[1], children: [categories[2]], tickets: [] }] },
        { ...categories[3], children: [] },
      ]);
    });

    it("relation counts, with and without a where", async () => {
      const rows = await engine
        .execute(
          select(RelTicket)
            .orderBy("id")
            .withCount({ comments: true, labels: true })
            .withCount({ comments: (c) => c.where({ likes: op.gte(5n) }) }),
        )
        .all();
      expect(rows.map((t) => [t.id, t._count])).toEqual([
        [10, { comments: 3, labels: 2 }],
        [11, { comments: 1, labels: 1 }],
        [12, { comments: 0, labels: 0 }],
      ]);
      const byLabel = await engine.execute(select(RelLabel).orderBy("id").withCount({ tickets: true })).all();
      expect(byLabel.map((l) => [l.id, l._count.tickets])).toEqual([
        ["bug", 1],
        ["unused", 0],
        ["urgent", 2],
      ]);
    });

    it("filters along relations: some, none and every, composed with and / or / not", async () => {
      const ids = async (q: { toNode(): unknown }) =>
        ((await engine.execute(q as never).all()) as { id: number | string }[]).map((r) => r.id);
      const ticketIds = (where: Parameters<ReturnType<typeof select<typeof RelTicket>>["where"]>[0]) =>
        ids(select(RelTicket).where(where).orderBy("id"));
      expect(await ticketIds(related.some(RelTicket, "comments", (c) => c.where({ likes: op.gte(9n) })))).toEqual([10, 11]);
      expect(await ticketIds(related.none(RelTicket, "comments"))).toEqual([12]);
      expect(await ticketIds(related.every(RelTicket, "comments", (c) => c.where({ likes: op.gte(5n) })))).toEqual([11, 12]);
      // Many-to-many, through the join model.
      expect(await ticketIds(related.some(RelTicket, "labels", (l) => l.where({ id: "urgent" })))).toEqual([10, 11]);
      expect(await ticketIds(related.none(RelTicket, "labels"))).toEqual([12]);
      expect(await ticketIds(related.every(RelTicket, "labels", (l) => l.where({ color: "red" })))).toEqual([12]);
      // Belongs-to of a nullable key: a NULL key and a deleted row both have no related row.
      expect(await ids(select(RelComment).where(related.none(RelComment, "author")).orderBy("id"))).toEqual([102, 103]);
      expect(
        await ids(
          select(RelComment)
            .where(related.some(RelComment, "author", (u) => u.where({ name: "Ada" })))
            .orderBy("id"),
        ),
      ).toEqual([100]);
      // A self-reference, and composition.
      expect(await ids(select(RelCategory).where(related.some(RelCategory, "children")).orderBy("id"))).toEqual([1, 2]);
      expect(await ticketIds(or(related.none(RelTicket, "comments"), { status: "closed" }))).toEqual([11, 12]);
      expect(await ticketIds(and(not(related.none(RelTicket, "labels")), related.some(RelTicket, "assignee")))).toEqual([10]);
      // Uncorrelated: the outer select may alias the model.
      const aliased = await engine
        .execute(select(RelTicket, "t").where(related.some(RelTicket, "labels")).orderBy("t.id").columns({ id: "t.id" }))
        .all();
      expect(aliased).toEqual([{ id: 10 }, { id: 11 }]);
    });

    it("joins along a declared relation, keys from the declaration", async () => {
      const rows = await engine
        .execute(
          select(RelTicket, "t")
            .innerJoinRelated("t.comments", "c")
            .leftJoinRelated("c.author", "a")
            .where({ "c.likes": op.gte(9n) })
            .orderBy("c.id"),
        )
        .all();
      expect(rows).toEqual([
        { t: tickets[0], c: comment(101), a: user(2) },
        { t: tickets[1], c: comment(104), a: user(3) },
      ]);
      const unassigned = await engine
        .execute(select(RelTicket, "t").leftJoinRelated("t.assignee", "u").where({ "u.id": op.isNull() }).columns({ id: "t.id" }))
        .all();
      expect(unassigned).toEqual([{ id: 11 }]);
    });

    it("inside a transaction, on the transaction's connection", async () => {
      const rows = await engine.transaction(async (tx) =>
        tx
          .execute(
            select(RelLabel)
              .orderBy("id")
              .with({ tickets: (t) => t.orderBy("id") }),
          )
          .all(),
      );
      expect(rows.map((l) => [l.id, l.tickets.map((t) => t.id)])).toEqual([
        ["bug", [10]],
        ["unused", []],
        ["urgent", [10, 11]],
      ]);
    });

    relationSnapshotTests(() => engine, makeEngine);

    describe(`${MANY.toLocaleString("en")} owner rows`, () => {
      let counting: Engine;
      const events: QueryEvent[] = [];

      beforeAll(async () => {
        counting = makeEngine({ onQuery: (event) => events.push(event) });
        const users = Array.from({ length: MANY }, (_, i) => ({ id: BULK_FROM + i, name: `bulk ${i}`, joinedAt: at(i % 60) }));
        const bulkProfiles = users
          .filter((_, i) => i % 3 === 0)
          .map((u) => ({ id: u.id, userId: u.id, balance: `${u.id % 100}.25`, settings: null }));
        for (const [model, rows] of [
          [RelUser, users],
          [RelProfile, bulkProfiles],
        ] as const) {
          for (let i = 0; i < rows.length; i += 5000)
            await counting.execute(insert(model).values(rows.slice(i, i + 5000) as never)).rowsAffected();
        }
      });

      afterAll(async () => {
        await counting.execute(deleteFrom(RelProfile).where({ id: op.gte(BULK_FROM) })).rowsAffected();
        await counting.execute(deleteFrom(RelUser).where({ id: op.gte(BULK_FROM) })).rowsAffected();
        await counting.close();
      });

      const load = (limit: number) =>
        select(RelUser)
          .where({ id: op.gte(BULK_FROM) })
          .orderBy("id")
          .limit(limit)
          .with({ profile: true, reported: true })
          .withCount({ assigned: true });

      it("load in as many statements as 10 do, all in one read-only transaction", async () => {
        events.length = 0;
        const few = await counting.execute(load(10)).all();
        const fewStatements = events.length;
        events.length = 0;
        const all = await counting.execute(load(MANY)).all();
        expect(all.length).toBe(MANY);
        expect(few.length).toBe(10);
        expect(events.length).toBe(fewStatements);
        // BEGIN, the users, profiles, tickets reported, the count, COMMIT (MySQL sets the isolation level first).
        expect(events.filter((e) => /^\s*select/i.test(e.sql)).length).toBe(4);
        expect(events.every((e) => e.inTransaction && e.error === undefined)).toBe(true);
        expect(all[3]).toEqual({
          id: BULK_FROM + 3,
          name: "bulk 3",
          joinedAt: at(3),
          profile: { id: BULK_FROM + 3, userId: BULK_FROM + 3, balance: `${(BULK_FROM + 3) % 100}.25`, settings: null },
          reported: [],
          _count: { assigned: 0 },
        });
        expect(all[4]?.profile).toBeNull();
        expect(all.filter((u) => u.profile !== null).length).toBe(Math.ceil(MANY / 3));
      });
    });

    it("the same rows as plain joins assembled by hand, for random loads", async () => {
      let seed = 7;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const joined = await engine
        .execute(select(RelTicket, "t").leftJoin(RelComment, "c", "c.ticketId", "t.id").orderBy("t.id").orderBy("c.id"))
        .all();
      for (let run = 0; run < 12; run++) {
        const minLikes = BigInt([0, 2, 5, 9][random(4)] as number);
        const desc = random(2) === 0;
        const limit = random(3) === 0 ? undefined : 1 + random(3);
        const loaded = await engine
          .execute(
            select(RelTicket)
              .orderBy("id")
              .with({
                comments: (c) => {
                  const ordered = c.where({ likes: op.gte(minLikes) }).orderBy("likes", desc ? "desc" : "asc");
                  return limit === undefined ? ordered : ordered.limit(limit);
                },
              }),
          )
          .all();
        const byHand = tickets.map((t) => {
          const own = joined
            .filter((r) => r.t.id === t.id && r.c !== null && r.c.likes >= minLikes)
            .map((r) => r.c as NonNullable<typeof r.c>)
            .sort((a, b) => (a.likes === b.likes ? a.id - b.id : (a.likes < b.likes ? -1 : 1) * (desc ? -1 : 1)));
          return { ...t, comments: limit === undefined ? own : own.slice(0, limit) };
        });
        expect(loaded, `likes >= ${minLikes}, ${desc ? "desc" : "asc"}, limit ${limit}`).toEqual(byHand);
      }
    });
  });
}
