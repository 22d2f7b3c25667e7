import { hostileInputSuite } from "./support/hostile-suite.js";
import { limitationSuite } from "./support/limitation-suite.js";
import { postgres } from "./support/targets.js";

hostileInputSuite(postgres);

limitationSuite(postgres, {
  forUpdate: "supported",
  forShare: "supported",
  skipLocked: "supported",
  noWait: "supported",
  forUpdateOf: "supported",
  forShareOf: "supported",
  lockedSubquery: "supported",
  limitInSubquery: "supported",
  offsetInSelectSubquery: "supported",
  conflictTargetDoNothing: "supported",
  conflictTargetDoUpdate: "supported",
  conflictTargetWhere: "supported",
  onDuplicateKeyUpdate: /^ON DUPLICATE KEY UPDATE$/,
  returningUpdate: "supported",
  partialUniqueIndex: "supported",
  notifications: "supported",
});
