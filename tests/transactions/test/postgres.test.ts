import { contractSuite } from "./support/contract-suite.js";
import { interleavingProperty } from "./support/interleavings.js";
import { postgres } from "./support/targets.js";

contractSuite(postgres);
interleavingProperty(postgres);
