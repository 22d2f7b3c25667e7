import { hostileInputSuite } from "./support/hostile-suite.js";
import { limitationSuite } from "./support/limitation-suite.js";
import { mariadb } from "./support/targets.js";

hostileInputSuite(mariadb);

const LIMIT_IN_SUBQUERY = /^LIMIT inside an IN \(SELECT \.\.\.\) subquery$/;
const CONFLICT_TARGET = /^a conflict target \(ON CONFLICT \(columns\)\)$/;

limitationSuite(mariadb, {
  forUpdate: "supported",
  forShare: "supported",
  skipLocked: "supported",
  noWait: "supported",
  forUpdateOf: /^FOR UPDATE OF$/,
  forShareOf: /^FOR UPDATE OF$/,
  lockedSubquery: "supported",
  limitInSubquery: LIMIT_IN_SUBQUERY,
  offsetInSelectSubquery: LIMIT_IN_SUBQUERY,
  conflictTargetDoNothing: CONFLICT_TARGET,
  conflictTargetDoUpdate: CONFLICT_TARGET,
  conflictTargetWhere: CONFLICT_TARGET,
  onDuplicateKeyUpdate: "supported",
  returningUpdate: /^RETURNING on UPDATE$/,
  partialUniqueIndex: /^the partial unique index hostile_rows_tag_when_queued$/,
  notifications: /^notifications \(LISTEN\/NOTIFY\)$/,
});
