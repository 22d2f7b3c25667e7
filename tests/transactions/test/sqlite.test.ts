import { contractSuite } from "./support/contract-suite.js";
import { interleavingProperty } from "./support/interleavings.js";
import { sqliteFile, sqliteMemory } from "./support/targets.js";
import { timeoutSuite } from "./support/timeout-suite.js";

contractSuite(sqliteFile);
interleavingProperty(sqliteFile);
contractSuite(sqliteMemory);
interleavingProperty(sqliteMemory);
// better-sqlite3 runs a statement synchronously: no timer fires during one, so there is none to cancel.
timeoutSuite(sqliteFile, undefined);
timeoutSuite(sqliteMemory, undefined);
