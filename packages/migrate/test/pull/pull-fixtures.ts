import { column, index, Model, op, sql, uniqueIndex } from "tempest-db-js";

/** Models covering what pull must write back: every kind, defaults, keys, references, partial indexes. */
export class PullUser extends Model {
  static tablename = "pull_users";
  static naming = "snake_case";
  id = column.uuid().primaryKey().defaultRandom();
  email = column.varchar(120).notNull().unique();
  displayName = column.text();
  isAdmin = column.boolean().notNull().default(false);
  createdAt = column.datetime().notNull().default(sql.now());
  legacyID = column.integer().name("LegacyID");
}

export class PullTicket extends Model {
  static tablename = "pull_tickets";
  static naming = "snake_case";
  static indexes = [
    index<PullTicket>("pull_tickets_due", ["status", "dueAt"]),
    uniqueIndex<PullTicket>("pull_tickets_key", ["ownerId", "idempotencyKey"]).where({
      idempotencyKey: op.isNull(false),
      status: op.in(["open", "closed"]),
    }),
    index<PullTicket>("pull_tickets_urgent", ["priority"]).where({ priority: op.gte(5) }),
  ];
  id = column.bigint().primaryKey();
  ownerId = column
    .uuid()
    .notNull()
    .references(() => PullUser, "id", { onDelete: "cascade" });
  parentId = column.bigint().references(() => PullTicket);
  status = column.enum("open", "closed", "spam").notNull().default("open");
  priority = column.integer().notNull().default(3);
  title = column.varchar(200).notNull().default("untitled");
  idempotencyKey = column.text();
  amount = column.numeric(12, 2).default("0.00");
  ratio = column.real();
  dueAt = column.datetime();
  dueOn = column.date().default("2030-01-01");
  payload = column.json().default({ tags: [] });
  blob = column.bytes();
  big = column.bigint().default(9007199254740993n);
  since = column.datetime().default(new Date("2024-05-06T07:08:09.123Z"));
}

export class PullTag extends Model {
  static tablename = "pull_tags";
  ticketId = column
    .bigint()
    .primaryKey()
    .references(() => PullTicket, undefined, { onDelete: "cascade" });
  tag = column.text().primaryKey();
}

export const pullModelsFixture = [PullUser, PullTicket, PullTag];

/** MySQL/MariaDB have no partial indexes: a unique one may only exclude NULLs there. */
export class PullTicketMysql extends PullTicket {
  static override indexes = [
    index<PullTicket>("pull_tickets_due", ["status", "dueAt"]),
    uniqueIndex<PullTicket>("pull_tickets_key", ["ownerId", "idempotencyKey"]).where({ idempotencyKey: op.isNull(false) }),
  ];
}

export const pullModelsFixtureMysql = [PullUser, PullTicketMysql, PullTag];
