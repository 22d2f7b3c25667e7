import { column } from "../schema/column.js";
import { Model } from "../schema/model.js";
import { relation } from "../schema/relation.js";

/*
 * The relation cases' schema: a help desk. Users report and are assigned tickets; tickets have
 * comments (by users), labels (many-to-many through a join model) and a category; categories nest
 * (a self-reference); a user has at most one profile. Comment.authorId has no references(): an
 * author may be deleted and leave the comment behind, which then has no author.
 */

export class RelUser extends Model {
  static tablename = "tempest_rel_users";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  name = column.text().notNull();
  joinedAt = column.datetime().notNull();
  assigned = relation.hasMany(() => RelTicket, "assigneeId");
  reported = relation.hasMany(() => RelTicket, "reporterId");
  profile = relation.hasOne(() => RelProfile);
}

export class RelProfile extends Model {
  static tablename = "tempest_rel_profiles";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  userId = column
    .integer()
    .notNull()
    .unique()
    .references(() => RelUser);
  balance = column.numeric(12, 2).notNull();
  settings = column.json<{ theme: string }>();
  user = relation.belongsTo(() => RelUser, this.userId);
}

export class RelCategory extends Model {
  static tablename = "tempest_rel_categories";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  name = column.text().notNull();
  parentId = column.integer().references(() => RelCategory);
  parent = relation.belongsTo(() => RelCategory, this.parentId);
  children = relation.hasMany(() => RelCategory, "parentId");
  tickets = relation.hasMany(() => RelTicket);
}

export class RelTicket extends Model {
  static tablename = "tempest_rel_tickets";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  title = column.text().notNull();
  status = column.enum("open", "closed").notNull();
  estimate = column.numeric(10, 2);
  openedAt = column.datetime().notNull();
  reporterId = column
    .integer()
    .notNull()
    .references(() => RelUser);
  assigneeId = column.integer().references(() => RelUser);
  categoryId = column.integer().references(() => RelCategory);
  reporter = relation.belongsTo(() => RelUser, this.reporterId);
  assignee = relation.belongsTo(() => RelUser, this.assigneeId);
  category = relation.belongsTo(() => RelCategory, this.categoryId);
  comments = relation.hasMany(() => RelComment);
  labels = relation.manyToMany(() => RelLabel, { through: () => RelTicketLabel });
}

export class RelComment extends Model {
  static tablename = "tempest_rel_comments";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  ticketId = column
    .integer()
    .notNull()
    .references(() => RelTicket);
  authorId = column.integer();
  body = column.text().notNull();
  likes = column.bigint().notNull();
  postedAt = column.datetime().notNull();
  ticket = relation.belongsTo(() => RelTicket, this.ticketId);
  author = relation.belongsTo(() => RelUser, this.authorId);
}

export class RelLabel extends Model {
  static tablename = "tempest_rel_labels";
  static naming = "snake_case";
  id = column.varchar(20).primaryKey();
  color = column.text().notNull();
  tickets = relation.manyToMany(() => RelTicket, { through: () => RelTicketLabel });
}

export class RelTicketLabel extends Model {
  static tablename = "tempest_rel_ticket_labels";
  static naming = "snake_case";
  ticketId = column
    .integer()
    .primaryKey()
    .references(() => RelTicket);
  labelId = column
    .varchar(20)
    .primaryKey()
    .references(() => RelLabel);
}

/** In creation order (referenced tables first). */
export const relationModels = [RelUser, RelProfile, RelCategory, RelTicket, RelComment, RelLabel, RelTicketLabel];
