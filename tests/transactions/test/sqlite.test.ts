import { contractSuite } from "./support/contract-suite.js";
import { interleavingProperty } from "./support/interleavings.js";
import { sqliteFile, sqliteMemory } from "./support/targets.js";

contractSuite(sqliteFile);
interleavingProperty(sqliteFile);
contractSuite(sqliteMemory);
interleavingProperty(sqliteMemory);
