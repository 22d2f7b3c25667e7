import { contractSuite } from "./support/contract-suite.js";
import { interleavingProperty } from "./support/interleavings.js";
import { postgres } from "./support/targets.js";
import { timeoutSuite } from "./support/timeout-suite.js";

contractSuite(postgres);
interleavingProperty(postgres);
timeoutSuite(postgres, "SELECT pg_sleep(30)");
