import { hostileInputSuite } from "./support/hostile-suite.js";
import { limitationSuite } from "./support/limitation-suite.js";
import { sqliteFile, sqliteMemory } from "./support/targets.js";

hostileInputSuite(sqliteFile);
hostileInputSuite(sqliteMemory);

const ROW_LOCKS = /^row locks \(forUpdate\)$/;
const SHARE_LOCKS = /^shared row locks \(forShare\)$/;

limitationSuite(sqliteFile, {
  forUpdate: ROW_LOCKS,
  forShare: SHARE_LOCKS,
  skipLocked: ROW_LOCKS,
  noWait: ROW_LOCKS,
  forUpdateOf: ROW_LOCKS,
  forShareOf: SHARE_LOCKS,
  lockedSubquery: ROW_LOCKS,
  limitInSubquery: "supported",
  offsetInSelectSubquery: "supported",
  conflictTargetDoNothing: "supported",
  conflictTargetDoUpdate: "supported",
  conflictTargetWhere: "supported",
  onDuplicateKeyUpdate: /^ON DUPLICATE KEY UPDATE$/,
  returningUpdate: "supported",
  partialUniqueIndex: "supported",
  notifications: /^notifications \(LISTEN\/NOTIFY\)$/,
});
