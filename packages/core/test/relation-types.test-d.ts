import { describe, expectTypeOf, test } from "vitest";
import type { InferInsert, InferModel, Relation, RowOf, SetOf } from "../src/index.js";
import { column, Model, op, related, relation, select } from "../src/index.js";
import type { RelCategory, RelComment, RelLabel, RelProfile, RelTicket, RelUser } from "../src/testing/index.js";
import { RelCategory as Category, RelTicket as Ticket, RelUser as User } from "../src/testing/index.js";

type TicketRow = RowOf<RelTicket>;
type CommentRow = RowOf<RelComment>;
type UserRow = RowOf<RelUser>;
type LabelRow = RowOf<RelLabel>;
type ProfileRow = RowOf<RelProfile>;
type CategoryRow = RowOf<RelCategory>;

describe("relation fields are not columns", () => {
  test("rows, inserts and updates never carry them", () => {
    expectTypeOf<keyof TicketRow>().toEqualTypeOf<
      "id" | "title" | "status" | "estimate" | "openedAt" | "reporterId" | "assigneeId" | "categoryId"
    >();
    expectTypeOf<keyof InferInsert<typeof Ticket>>().toEqualTypeOf<keyof TicketRow>();
    expectTypeOf<keyof SetOf<RelTicket>>().toEqualTypeOf<keyof TicketRow>();
    expectTypeOf<InferModel<typeof Ticket>>().toEqualTypeOf<TicketRow>();
  });

  test("declarations carry the related model and the nullability of the key", () => {
    expectTypeOf<RelTicket["reporter"]>().toEqualTypeOf<Relation<RelUser, false, false>>();
    expectTypeOf<RelTicket["assignee"]>().toEqualTypeOf<Relation<RelUser, false, true>>();
    expectTypeOf<RelTicket["comments"]>().toEqualTypeOf<Relation<RelComment, true, false>>();
    expectTypeOf<RelUser["profile"]>().toEqualTypeOf<Relation<RelProfile, false, true>>();
    expectTypeOf<RelCategory["children"]>().toEqualTypeOf<Relation<RelCategory, true, false>>();
  });

  test("cycles need no annotation (Customer <-> Order, a self-reference)", () => {
    class Customer extends Model {
      static tablename = "customers";
      id = column.integer().primaryKey();
      orders = relation.hasMany(() => Order);
      referrerId = column.integer();
      referrer = relation.belongsTo(() => Customer, this.referrerId);
    }
    class Order extends Model {
      static tablename = "orders";
      id = column.integer().primaryKey();
      customerId = column
        .integer()
        .notNull()
        .references(() => Customer);
      customer = relation.belongsTo(() => Customer, this.customerId);
    }
    const q = select(Order).with({ customer: (c) => c.with({ orders: true, referrer: true }) });
    expectTypeOf<RowsOf<typeof q>["customer"]["orders"]>().toEqualTypeOf<RowOf<Order>[]>();
    expectTypeOf<RowsOf<typeof q>["customer"]["referrer"]>().toEqualTypeOf<RowOf<Customer> | null>();
  });
});

/** The row type a select makes. */
type RowsOf<Q> = Q extends { readonly __row?: [infer R] } ? R : never;

describe("loaded rows are typed to the leaf", () => {
  test("the ticket page", () => {
    const page = select(Ticket)
      .where({ id: 10 })
      .with({
        comments: (c) => c.orderBy("postedAt").with({ author: true }),
        labels: true,
        reporter: true,
        assignee: (u) => u.with({ profile: true }),
      });
    type Page = RowsOf<typeof page>;
    expectTypeOf<Page>().toEqualTypeOf<
      TicketRow & {
        comments: (CommentRow & { author: UserRow | null })[];
        labels: LabelRow[];
        reporter: UserRow;
        assignee: (UserRow & { profile: ProfileRow | null }) | null;
      }
    >();
  });

  test("a self-reference three levels deep, and counts", () => {
    const tree = select(Category).with({ children: (c) => c.with({ children: true, parent: true }) });
    expectTypeOf<RowsOf<typeof tree>["children"][number]["children"]>().toEqualTypeOf<CategoryRow[]>();
    expectTypeOf<RowsOf<typeof tree>["children"][number]["parent"]>().toEqualTypeOf<CategoryRow | null>();
    const counted = select(User).withCount({ assigned: true, reported: (t) => t.where({ status: "open" }) });
    expectTypeOf<RowsOf<typeof counted>["_count"]>().toEqualTypeOf<{ assigned: number; reported: number }>();
  });

  test("a relation that does not exist, a field of the wrong model, a count of a to-one relation", () => {
    // @ts-expect-error no relation "author" on tickets
    select(Ticket).with({ author: true });
    // @ts-expect-error a misspelt relation next to a right one
    select(Ticket).with({ comments: true, comentz: true });
    // @ts-expect-error "title" is a field of Ticket, not of Comment
    select(Ticket).with({ comments: (c) => c.where({ title: "x" }) });
    // @ts-expect-error orderBy a field of another model
    select(Ticket).with({ comments: (c) => c.orderBy("title") });
    // @ts-expect-error likes is a bigint
    select(Ticket).with({ comments: (c) => c.where({ likes: op.gte(5) }) });
    // @ts-expect-error assignee holds one row: nothing to count
    select(Ticket).withCount({ assignee: true });
    // @ts-expect-error a nested relation that the related model does not have
    select(Ticket).with({ comments: (c) => c.with({ labels: true }) });
  });
});

describe("filters and joins along relations", () => {
  test("the filter is the related model's select; the path names a source's relation", () => {
    select(Ticket).where(related.some(Ticket, "comments", (c) => c.where({ likes: op.gte(5n) })));
    // @ts-expect-error no relation "comentz"
    related.none(Ticket, "comentz");
    // @ts-expect-error "title" is a Ticket field, not a Comment field
    related.some(Ticket, "comments", (c) => c.where({ title: "x" }));
    // @ts-expect-error every needs its filter
    related.every(Ticket, "comments");
    const joined = select(Ticket, "t").innerJoinRelated("t.comments", "c").leftJoinRelated("c.author", "a");
    expectTypeOf<RowsOf<typeof joined>>().toEqualTypeOf<{ t: TicketRow; c: CommentRow; a: UserRow | null }>();
    // @ts-expect-error a path needs a named source
    select(Ticket).innerJoinRelated("comments", "c");
    // @ts-expect-error no relation "author" on t
    select(Ticket, "t").innerJoinRelated("t.author", "a");
  });
});
