import { contractSuite } from "./support/contract-suite.js";
import { interleavingProperty } from "./support/interleavings.js";
import { mariadb } from "./support/targets.js";

contractSuite(mariadb);
interleavingProperty(mariadb);
