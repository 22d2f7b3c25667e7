import { describe, expect, test } from "vitest";
import type { ModelClass } from "../src/index.js";
import { column, Model, related, relation, relationsOf, select, ValidationError } from "../src/index.js";
import { tableMeta } from "../src/schema/table-meta.js";
import { RelComment, RelLabel, RelTicket, RelTicketLabel, RelUser } from "../src/testing/index.js";
import { testEngine } from "./support/test-dialect.js";

const engine = testEngine();

/** The ValidationError reading `model` throws. */
function readError(model: ModelClass): ValidationError {
  let error: unknown;
  try {
    tableMeta(model);
  } catch (e) {
    error = e;
  }
  expect(ValidationError.isInstance(error)).toBe(true);
  return error as ValidationError;
}

describe("relation declarations, resolved when the model is first read", () => {
  test("each kind finds its keys: the references() column, the join model's two columns", () => {
    const ticket = relationsOf(tableMeta(RelTicket));
    const table = (m: ModelClass) => tableMeta(m);
    expect(ticket.get("assignee")).toMatchObject({ kind: "belongsTo", many: false, key: table(RelTicket).byField.get("assigneeId") });
    expect(ticket.get("assignee")?.link).toBe(table(RelUser).byField.get("id"));
    expect(ticket.get("comments")).toMatchObject({ kind: "hasMany", many: true, link: table(RelComment).byField.get("ticketId") });
    const labels = ticket.get("labels");
    expect(labels?.through?.table).toBe(table(RelTicketLabel));
    expect(labels?.link).toBe(table(RelTicketLabel).byField.get("ticketId"));
    expect(labels?.through?.targetKey).toBe(table(RelLabel).byField.get("id"));
  });

  test("relation fields are not columns: select(M) reads none of them", () => {
    const compiled = engine.compile(select(RelComment));
    expect(compiled.sql).toBe('SELECT "id", "ticket_id", "author_id", "body", "likes", "posted_at" FROM "tempest_rel_comments"');
    expect(tableMeta(RelComment).columns.map((c) => c.field)).toEqual(["id", "ticketId", "authorId", "body", "likes", "postedAt"]);
  });

  test("a foreign-key field that does not exist", () => {
    class Post extends Model {
      static tablename = "posts_missing_fk";
      id = column.integer().primaryKey();
      notes = relation.hasMany(() => Note, "postRef" as never);
    }
    class Note extends Model {
      static tablename = "notes_missing_fk";
      id = column.integer().primaryKey();
      postId = column.integer().references(() => Post);
    }
    expect(readError(Post).message).toBe('Post.notes (hasMany): Note has no column "postRef"');
  });

  test("keys of two types", () => {
    class Account extends Model {
      static tablename = "accounts_kinds";
      id = column.uuid().primaryKey();
      invoices = relation.hasMany(() => Invoice);
    }
    class Invoice extends Model {
      static tablename = "invoices_kinds";
      id = column.integer().primaryKey();
      accountId = column.integer().references(() => Account);
    }
    expect(readError(Account).message).toBe(
      "Account.invoices (hasMany): accounts_kinds.id is uuid but invoices_kinds.accountId is integer; the keys must have one type",
    );
  });

  test("a related model that is not a model, and one not defined yet", () => {
    class Orphan extends Model {
      static tablename = "orphans";
      id = column.integer().primaryKey();
      parent = relation.hasMany(() => 42 as never);
    }
    expect(readError(Orphan).message).toBe("Orphan.parent (hasMany): its related model must be a model class, got number");
    class Early extends Model {
      static tablename = "early";
      id = column.integer().primaryKey();
      later = relation.hasMany(() => Later);
    }
    // Read before `class Later` has run: the thunk throws a ReferenceError, reported against the relation.
    const error = readError(Early);
    expect(error.message).toMatch(/^Early\.later \(hasMany\): its related model could not be read \(.*Later.*\); a class declared later/);
    class Later extends Model {
      static tablename = "later";
      id = column.integer().primaryKey();
      earlyId = column.integer().references(() => Early);
    }
    // Not cached as broken: read again once the class exists, it resolves.
    expect(relationsOf(tableMeta(Early)).get("later")?.link.field).toBe("earlyId");
  });

  test("an ambiguous pair: two columns reference the owner", () => {
    class Person extends Model {
      static tablename = "people_ambiguous";
      id = column.integer().primaryKey();
      tasks = relation.hasMany(() => Task);
    }
    class Task extends Model {
      static tablename = "tasks_ambiguous";
      id = column.integer().primaryKey();
      ownerId = column.integer().references(() => Person);
      reviewerId = column.integer().references(() => Person);
    }
    expect(readError(Person).message).toBe(
      "Person.tasks (hasMany): ambiguous, Task.ownerId and Task.reviewerId all reference Person; name the foreign-key field",
    );
  });

  test("a named foreign key that references another model, and a belongs-to whose key is not the model's column", () => {
    class Shelf extends Model {
      static tablename = "shelves";
      id = column.integer().primaryKey();
    }
    class Room extends Model {
      static tablename = "rooms";
      id = column.integer().primaryKey();
      books = relation.hasMany(() => Book, "shelfId");
    }
    class Book extends Model {
      static tablename = "books";
      id = column.integer().primaryKey();
      shelfId = column.integer().references(() => Shelf);
    }
    expect(readError(Room).message).toBe("Room.books (hasMany): Book.shelfId references Shelf, not Room");
    const foreign = column.integer();
    class Loose extends Model {
      static tablename = "loose";
      id = column.integer().primaryKey();
      shelf = relation.belongsTo(() => Shelf, foreign);
    }
    expect(readError(Loose).message).toBe(
      "Loose.shelf (belongsTo): the key must be a column of Loose declared above the relation (this.<field>)",
    );
  });

  test("many-to-many: the join model must reference both sides", () => {
    class Film extends Model {
      static tablename = "films";
      id = column.integer().primaryKey();
      actors = relation.manyToMany(() => Actor, { through: () => Cast });
    }
    class Actor extends Model {
      static tablename = "actors";
      id = column.integer().primaryKey();
    }
    class Cast extends Model {
      static tablename = "casts";
      filmId = column
        .integer()
        .primaryKey()
        .references(() => Film);
      actorId = column.integer().primaryKey();
    }
    expect(readError(Film).message).toBe("Film.actors (manyToMany) to: no column of Cast references Actor; name the foreign-key field");
  });

  test("multi-column keys are refused, naming the relation: a list of keys, and a composite primary key", () => {
    class Shipment extends Model {
      static tablename = "shipments_composite";
      orderId = column.integer().primaryKey();
      line = column.integer().primaryKey();
      parcels = relation.hasMany(() => Parcel, ["orderId", "line"] as never);
    }
    class Parcel extends Model {
      static tablename = "parcels_composite";
      id = column.integer().primaryKey();
      orderId = column.integer().notNull();
      line = column.integer().notNull();
      shipment = relation.belongsTo(() => Shipment, [this.orderId, this.line] as never);
    }
    class Pallet extends Model {
      static tablename = "pallets_composite";
      orderId = column.integer().primaryKey();
      line = column.integer().primaryKey();
    }
    class Crate extends Model {
      static tablename = "crates_composite";
      id = column.integer().primaryKey();
      orderId = column.integer().references(() => Pallet);
      pallet = relation.belongsTo(() => Pallet, this.orderId);
    }
    const single = "a relation joins on one column: multi-column (composite) keys are not supported";
    expect(readError(Shipment).message).toBe(`Shipment.parcels (hasMany): its foreign key is a list of 2; ${single}`);
    expect(readError(Parcel).message).toBe(`Parcel.shipment (belongsTo): its key is a list of 2; ${single}`);
    expect(readError(Crate).message).toBe(
      `Crate.pallet (belongsTo): Pallet has a composite primary key (orderId, line), and ${single}; reference one unique column with references(() => Model, "field")`,
    );
  });

  test("a self-referencing many-to-many needs from and to", () => {
    class Member extends Model {
      static tablename = "members";
      id = column.integer().primaryKey();
      follows = relation.manyToMany(() => Member, { through: () => Follow, from: "followerId", to: "followeeId" });
      followers = relation.manyToMany(() => Member, { through: () => Follow });
    }
    class Follow extends Model {
      static tablename = "follows";
      followerId = column
        .integer()
        .primaryKey()
        .references(() => Member);
      followeeId = column
        .integer()
        .primaryKey()
        .references(() => Member);
    }
    expect(readError(Member).message).toBe(
      "Member.followers (manyToMany) from: ambiguous, Follow.followerId and Follow.followeeId all reference Member; name the foreign-key field",
    );
  });
});

describe(".with() and .withCount() refuse at build time", () => {
  test("a relation the model does not have", () => {
    expect(() => select(RelTicket).with({ nope: true } as never)).toThrow('select(RelTicket).with: RelTicket has no relation "nope"');
  });

  test("a select without the relation's key", () => {
    expect(() => select(RelTicket, ["id", "title"]).with({ assignee: true })).toThrow(
      "select(RelTicket).with({ assignee }): the select must include RelTicket.assigneeId, the relation's key",
    );
  });

  test("joins, locks, set operations, subqueries and streams", () => {
    expect(() => select(RelTicket, "t").with({ comments: true })).toThrow(/without an alias, joins or columns/);
    const loading = select(RelTicket).with({ comments: true });
    expect(() => loading.forUpdate()).toThrow(/runs only on its own/);
    expect(() => loading.union(select(RelTicket) as never)).toThrow(/runs only on its own/);
    expect(() => loading.asSubquery("id")).toThrow(/runs only on its own/);
    expect(() => engine.stream(loading)).toThrow(/is read with execute\(\)/);
  });

  test("a function that returns something else, and a count over a to-one relation", () => {
    expect(() => select(RelTicket).with({ comments: () => select(RelUser) as never })).toThrow(
      "select(RelTicket).with({ comments }): the function must return a select of RelComment",
    );
    expect(() => select(RelTicket).withCount({ assignee: true } as never)).toThrow(/counts a to-many relation; assignee holds one row/);
    expect(() => select(RelTicket).withCount({ comments: (c) => c.orderBy("id") })).toThrow(/a count takes a where only/);
  });

  test("the plan is carried by the later clauses, and a second with() replaces an entry", () => {
    const q = select(RelTicket)
      .with({ comments: true })
      .where({ status: "open" })
      .orderBy("id")
      .limit(5)
      .with({ comments: (c) => c.limit(1), labels: true });
    expect(engine.compile(q).sql).toBe(
      'SELECT "id", "title", "status", "estimate", "opened_at", "reporter_id", "assignee_id", "category_id" FROM "tempest_rel_tickets" WHERE "status" = ? ORDER BY "id" ASC LIMIT 5',
    );
  });
});

describe("filters and joins along relations", () => {
  test("compile to IN / NOT IN of the related keys, a nullable key kept for none", () => {
    expect(engine.compile(select(RelComment, ["id"]).where(related.none(RelComment, "author")))).toMatchObject({
      sql: 'SELECT "id" FROM "tempest_rel_comments" WHERE "author_id" IS NULL OR "author_id" NOT IN (SELECT "id" FROM "tempest_rel_users")',
      params: [],
    });
    expect(
      engine.compile(select(RelTicket, ["id"]).where(related.some(RelTicket, "labels", (l) => l.where({ color: "red" })))),
    ).toMatchObject({
      sql: 'SELECT "id" FROM "tempest_rel_tickets" WHERE "id" IN (SELECT "ticket_id" FROM "tempest_rel_ticket_labels" WHERE "label_id" IN (SELECT "id" FROM "tempest_rel_labels" WHERE "color" = ?))',
      params: ["red"],
    });
  });

  test("refusals", () => {
    expect(() => related.every(RelTicket, "comments", undefined as never)).toThrow(
      'related.every(RelTicket, "comments"): needs a filter with a where',
    );
    expect(() => related.some(RelTicket, "comments", (c) => c.orderBy("id"))).toThrow(/takes a where only/);
    expect(() => select(RelTicket, "t").innerJoinRelated("t.labels", "l")).toThrow(
      /joined through its join model; join RelTicketLabel, then RelLabel/,
    );
    expect(() => select(RelTicket, "t").innerJoinRelated("x.comments" as never, "c")).toThrow(/names no source "x"/);
  });
});
