import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { MAX_SHAPE_TEXTS, StatementShapes } from "../src/compiler/statement-shapes.js";
import type { ColumnMeta, CompileContext, StatementNode } from "../src/index.js";
import {
  and,
  defineCapabilities,
  deleteFrom,
  insert,
  not,
  or,
  select,
  UnsupportedFeatureError,
  update,
  ValidationError,
} from "../src/index.js";
import { Outbound } from "./support/outbound.js";
import { fullCapabilities, TestCompiler } from "./support/test-dialect.js";

const ID = "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11";
const T0 = new Date("2024-05-01T10:00:00.000Z");
const row = (i: number, consumer = "billing") =>
  ({ id: ID, consumer, idempotencyKey: `key-${i}`, status: "queued", attempts: i, nextAttemptAt: T0 }) as const;

const node = (builder: { toNode(): StatementNode }) => builder.toNode();

/** What a compiler that has never seen the shape writes: the full compile. */
const fresh = (statement: StatementNode) => new TestCompiler(fullCapabilities).compile(statement);

describe("the shape cache of the plain builders", () => {
  test("a statement of a shape seen before gets that text, the same string, with its own values", () => {
    const compiler = new TestCompiler(fullCapabilities);
    const first = compiler.compile(node(select(Outbound).where({ consumer: "billing", attempts: { lt: 3 } })));
    const second = compiler.compile(node(select(Outbound).where({ consumer: "shipping", attempts: { lt: 9 } })));
    expect(second.sql).toBe(first.sql);
    expect(second.params).toEqual(["shipping", 9]);
    expect(second).toEqual(fresh(node(select(Outbound).where({ consumer: "shipping", attempts: { lt: 9 } }))));
    expect(Object.isFrozen(second) && Object.isFrozen(second.params)).toBe(true);

    const one = compiler.compile(node(insert(Outbound).values(row(1))));
    const two = compiler.compile(node(insert(Outbound).values(row(2, "shipping"))));
    expect(two.sql).toBe(one.sql);
    expect(two.params).toEqual([ID, "shipping", "key-2", "queued", 2, T0]);
    expect(two).toEqual(fresh(node(insert(Outbound).values(row(2, "shipping")))));

    const bump = (attempts: number, id: string) =>
      node(
        update(Outbound)
          .set({ attempts, consumer: "x" })
          .where({ id, attempts: attempts - 1 }),
      );
    const updated = compiler.compile(bump(1, ID));
    const again = compiler.compile(bump(7, "0e6f3c52-7d1b-4a35-8c2e-5f9a1b2c3d4e"));
    expect(again.sql).toBe(updated.sql);
    expect(again.params).toEqual([7, "x", "0e6f3c52-7d1b-4a35-8c2e-5f9a1b2c3d4e", 6]);
    expect(again).toEqual(fresh(bump(7, "0e6f3c52-7d1b-4a35-8c2e-5f9a1b2c3d4e")));
    const removed = compiler.compile(node(deleteFrom(Outbound).where({ id: ID })));
    expect(compiler.compile(node(deleteFrom(Outbound).where({ id: "0e6f3c52-7d1b-4a35-8c2e-5f9a1b2c3d4e" }))).sql).toBe(removed.sql);
  });

  test("statements of different shapes never share a text", () => {
    const compiler = new TestCompiler(fullCapabilities);
    const builders = () => [
      select(Outbound).where({ consumer: "a" }),
      select(Outbound).where({ consumer: { ne: "a" } }),
      select(Outbound).where({ consumer: { like: "a%" } }),
      select(Outbound).where({ idempotencyKey: "a" }),
      select(Outbound).where({ idempotencyKey: null }),
      select(Outbound).where({ idempotencyKey: { isNull: false } }),
      select(Outbound).where({ attempts: { between: [1, 2] } }),
      select(Outbound).where(and({ consumer: "a" }, or({ attempts: 1 }, { attempts: 2 }))),
      select(Outbound).where(or(and({ consumer: "a" }, { attempts: 1 }), { attempts: 2 })),
      select(Outbound).where(not({ consumer: "a" })),
      select(Outbound).where({ consumer: "a" }).limit(1),
      select(Outbound).where({ consumer: "a" }).limit(2),
      select(Outbound).where({ consumer: "a" }).limit(2).offset(1),
      select(Outbound).where({ consumer: "a" }).orderBy("attempts"),
      select(Outbound).where({ consumer: "a" }).orderBy("attempts", "desc"),
      select(Outbound).where({ consumer: "a" }).forUpdate(),
      select(Outbound).where({ consumer: "a" }).forUpdate({ skipLocked: true }),
      select(Outbound, ["id"]).where({ consumer: "a" }),
      select(Outbound),
      insert(Outbound).values(row(1)),
      insert(Outbound).values([row(1), row(2)]),
      insert(Outbound).values({ id: ID, consumer: "a", status: "queued", nextAttemptAt: T0 }),
      insert(Outbound).values(row(1)).returning(["id"]),
      insert(Outbound).values(row(1)).returning(),
      update(Outbound).set({ attempts: 1 }).where({ id: ID }),
      update(Outbound).set({ attempts: 1, consumer: "a" }).where({ id: ID }),
      update(Outbound).set({ consumer: "a", attempts: 1 }).where({ id: ID }),
      update(Outbound).set({ attempts: 1 }).where({ consumer: "a" }),
      update(Outbound).set({ attempts: 1 }).where({ id: ID }).returning(["id"]),
      deleteFrom(Outbound).where({ id: ID }),
      deleteFrom(Outbound).where({ id: { ne: ID } }),
      deleteFrom(Outbound).where({ id: ID }).returning(["id"]),
    ];
    // Twice: the second round is served from the cache, and must write exactly what the first did.
    const firstRound = builders().map((b) => compiler.compile(node(b)));
    const secondRound = builders().map((b) => compiler.compile(node(b)));
    expect(new Set(firstRound.map((c) => c.sql)).size).toBe(firstRound.length);
    for (let i = 0; i < firstRound.length; i++) {
      expect(secondRound[i]?.sql).toBe(firstRound[i]?.sql);
      expect(secondRound[i]).toEqual(fresh(node(builders()[i] as { toNode(): StatementNode })));
    }
  });

  test("any where of the cached kinds compiles from the cache exactly as in full, whatever its values", () => {
    const compiler = new TestCompiler(fullCapabilities);
    // Text a statement may carry (no NUL, no lone surrogate: those are refused, see the hostile-value test).
    const text = fc.string({ maxLength: 12 }).filter((s) => !s.includes("\0") && !/\p{Surrogate}/u.test(s));
    const leaf = fc.oneof(
      fc.record({ consumer: text }),
      fc.record({ consumer: fc.record({ ne: text }) }),
      fc.record({ consumer: fc.record({ like: text.filter((s) => !s.includes("\\")) }) }),
      fc.record({ attempts: fc.record({ gt: fc.integer({ min: -5, max: 5 }) }) }),
      fc.record({ attempts: fc.record({ between: fc.tuple(fc.integer(), fc.integer()) }) }),
      fc.record({ idempotencyKey: fc.constantFrom(null, "k") }),
    );
    const where = fc.letrec<{ where: unknown }>((tie) => ({
      where: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        fc.tuple(tie("where"), tie("where")).map(([a, b]) => and(a as never, b as never)),
        fc.tuple(tie("where"), tie("where")).map(([a, b]) => or(a as never, b as never)),
        tie("where").map((a) => not(a as never)),
      ),
    })).where;
    fc.assert(
      fc.property(where, fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }), (w, limit) => {
        const build = () => {
          const q = select(Outbound).where(w as never);
          return node(limit === undefined ? q : q.limit(limit));
        };
        compiler.compile(build());
        expect(compiler.compile(build())).toEqual(fresh(build()));
      }),
      { numRuns: 300 },
    );
  });

  test("a hostile value is bound, never written: the text is the shape's, and the checks still run", () => {
    const compiler = new TestCompiler(fullCapabilities);
    const benign = compiler.compile(node(select(Outbound).where({ consumer: "billing" })));
    for (const hostile of ["' OR 1=1 --", '"; DROP TABLE outbound_messages; --', "?", "$1", ") OR (1=1", "\\", "x".repeat(10_000)]) {
      const compiled = compiler.compile(node(select(Outbound).where({ consumer: hostile })));
      expect(compiled.sql).toBe(benign.sql);
      expect(compiled.params).toEqual([hostile]);
      const inserted = compiler.compile(node(insert(Outbound).values(row(1, hostile))));
      expect(inserted.sql).toBe(compiler.compile(node(insert(Outbound).values(row(1)))).sql);
      expect(inserted.params[1]).toBe(hostile);
    }
    // The text checks of a full compile run on a cached shape too: a NUL or a lone surrogate is refused unsent.
    for (const bad of ["a\0b", "a\uD800b"]) {
      expect(() => compiler.compile(node(select(Outbound).where({ consumer: bad })))).toThrow(ValidationError);
      expect(() => compiler.compile(node(insert(Outbound).values(row(1, bad))))).toThrow(ValidationError);
    }
  });

  test("a compiler with other capabilities has a cache of its own: a shape it cannot write is refused there", () => {
    const locking = new TestCompiler(fullCapabilities);
    const claim = () => node(select(Outbound).where({ status: "queued" }).limit(10).forUpdate({ skipLocked: true }));
    const text = locking.compile(claim()).sql;
    expect(locking.compile(claim()).sql).toBe(text);
    const noSkipLocked = new TestCompiler(defineCapabilities({ ...fullCapabilities, skipLocked: false }));
    expect(() => noSkipLocked.compile(claim())).toThrow(UnsupportedFeatureError);
    expect(() => noSkipLocked.compile(claim())).toThrow(UnsupportedFeatureError);
    expect(locking.compile(claim()).sql).toBe(text);
  });

  test("a dialect that writes values its own way compiles every statement in full", () => {
    // A (contrived) dialect whose text for a value depends on the value.
    class SizingCompiler extends TestCompiler {
      protected override bind(value: unknown, column: ColumnMeta | undefined, ctx: CompileContext): string {
        return `CAST(${super.bind(value, column, ctx)} AS ${String(value).length > 3 ? "LONG" : "SHORT"})`;
      }
    }
    const compiler = new SizingCompiler(fullCapabilities);
    expect(compiler.compile(node(select(Outbound).where({ consumer: "ab" }))).sql).toContain("CAST(? AS SHORT)");
    expect(compiler.compile(node(select(Outbound).where({ consumer: "abcdef" }))).sql).toContain("CAST(? AS LONG)");
  });

  test(`the cache keeps at most ${MAX_SHAPE_TEXTS} texts, then starts over`, () => {
    const compiler = new TestCompiler(fullCapabilities);
    const shapes = new StatementShapes({ value: () => {}, cells: () => {} });
    for (let limit = 0; limit < MAX_SHAPE_TEXTS * 3; limit++) {
      const statement = node(select(Outbound).where({ consumer: "a" }).limit(limit));
      const ctx = { params: [] } as unknown as CompileContext;
      const level = shapes.find(statement, ctx);
      expect(level).toBeDefined();
      if (level) shapes.remember(level, compiler.compile(statement).sql);
      expect(shapes.size).toBeLessThanOrEqual(MAX_SHAPE_TEXTS);
    }
    // Statements of shapes past the bound still compile right.
    expect(compiler.compile(node(select(Outbound).where({ consumer: "b" }).limit(700))).sql).toMatch(/LIMIT 700$/);
  });
});
