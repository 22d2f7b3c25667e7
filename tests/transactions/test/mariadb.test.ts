import { contractSuite } from "./support/contract-suite.js";
import { interleavingProperty } from "./support/interleavings.js";
import { mariadb } from "./support/targets.js";
import { timeoutSuite } from "./support/timeout-suite.js";

contractSuite(mariadb);
interleavingProperty(mariadb);
timeoutSuite(mariadb, "SELECT SLEEP(30)");
